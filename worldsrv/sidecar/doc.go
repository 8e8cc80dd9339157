// Package sidecar runs a world's ether sidecar for `worldsrv --ether spawn`:
// `ether migrate`, then `ether run` supervised by agent/supervise (the
// module's one process supervisor), bound to the world's lifetime.
//
// Lifecycle:
//
//	New ──► Start ──────────────────────────────► Wait ──► … ──► Stop
//	        │ ether migrate (MigrateTimeout;        │ ready line,    │ SIGTERM to ether's
//	        │  failure: error with ether's stderr)  │ then the port  │ process group; after
//	        │ ether run under the supervisor        │ accepts TCP    │ StopTimeout or when
//	        ▼                                       │                │ ctx ends: kill the tree
//	     running ── ether exits on its own ──► crashed ── backoff 1 s → 2 s → … → 30 s ──► running
//	                                           (never gives up: a world without its sidecar
//	                                            answers every login "login server offline")
//
// ether gets the RS_* settings (node id, port, database, NATS, link token)
// on top of a small base environment (PATH, HOME, locale, …), never the
// world's whole environment. Its output lines go into the world's log with
// component=ether: stdout at info, stderr at warn, except that a line
// carrying its own slog level (level=INFO, …; ether logs to stderr) keeps
// that level.
//
// World shutdown order: save the players (through ether), close the
// world's link, then Stop with a fresh context bounding the graceful stop —
// not the already cancelled root context, which would make Stop kill ether
// at once, before it flushes its queued database writes.
//
// ether dies with the world on every exit. An orderly exit (a signal the
// world handles, an error returned by its Run) calls Stop. Any other end of
// the world process — an unrecovered panic, os.Exit, kill -9 — is covered by
// the supervisor's DieWithParent: on Linux the kernel kills ether (and a
// running `ether migrate`) when the world's process ends; on Windows a
// kill-on-close job object does; on other systems only Stop does.
//
// Wait needs ether's "ether ready" line (logged at info, ether's default
// level: with RS_LOG_LEVEL=warn in Config.Env it succeeds only after the
// supervisor's readiness budget of 5 minutes) and then probes the port
// with a TCP connection (presenting the link token when there is one, so
// ether sees a world that links and leaves). ether takes a new connection
// for the world's and drops the current one, so Wait belongs to start-up,
// before the world's own link (worldsrv/etherlink) dials; after a crash
// restart the link's reconnect loop finds the new process by itself.
package sidecar
