// Package netprobetest holds test helpers for reachability probes: a TCP
// port that never completes a handshake (Linux). For tests only:
// production code never imports it.
package netprobetest
