// Package pkgtest checks what the deb and rpm packages ship (packaging/nfpm):
// every systemd unit passes systemd-analyze verify, and the agent's example
// configuration validates. It holds tests only.
package pkgtest
