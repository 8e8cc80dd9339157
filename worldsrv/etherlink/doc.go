// Package etherlink is the world's one persistent TCP connection to its
// ether sidecar (127.0.0.1:5000+node): it registers the world on every
// (re)connect, carries ether/proto frames both ways through two bounded
// queues so that the engine's tick never blocks on the network, and
// redials with backoff (1 s → 2 s → 4 s … 30 s) when the link is lost.
//
//	engine tick                Client                                  ether
//	───────────                ──────                                  ─────
//	Send(m) ──encode──► outQueue (≤ OutFrames/OutBytes; ──► writer ──► TCP ──►
//	                     full or down: new message dropped,   (one Write per
//	                     counted, Send returns false)          batch, then waits)
//
//	Drain(max, fn) ◄┬─ login queue (chan, ≤ InLogins) ◄──┬─ reader ◄── TCP ◄──
//	                │   LoginCheckResponse,                │  (Decoder; bad frame:
//	                │   PlayerLoadResponse                 │   counted, skipped;
//	                └─ inbound queue (chan, ≤ InEvents) ◄──┘
//	                    Connected, other messages (copied      queue full: waits)
//	                    out of the read buffer), Disconnected
//
// Order. Drain hands over at most max events in all. A player is waiting
// for each login answer (LoginCheckResponse, then PlayerLoadResponse: the
// engine's pending-login limit covers both), so a login answer overtakes
// the other frames of its connection queued before it (the thousands of PlayerSaveAcks of a
// mass logout would otherwise hold it back for many ticks); everything
// else keeps the order it arrived in. The rule that keeps the markers
// true: every event is tagged with its connection, and a login answer is
// handed over only after its connection's Connected, and always before its
// Disconnected (Drain holds a Disconnected back while answers of its
// connection are still queued; they were all queued before it). So an
// answer never overtakes a marker, and never lands in another connection.
//
// Run's goroutine dials and then is the reader; each connection has one
// writer goroutine. On connect, with Config.Token set, the listener must
// first prove that it knows the token (LinkChallenge → LinkProof, see
// docs/ether-protocol.md) or it is refused (ErrNotOurSidecar: named once
// with the process holding the port, never linked, never shown the
// token); then LinkAuth (with a token) and WorldRegister are written first, the frames still queued for the dead
// connection are dropped and counted, Send opens, the writer starts, a
// Connected event is queued, and then the reader starts. Teardown, on a
// read or write error or when Run's context ends: Send closes, the socket
// is closed (ending the reader and unblocking the writer), the writer is
// waited for, and a Disconnected event is queued (waiting, like the
// reader, for room in the inbound queue); then Run backs off and dials
// again, or returns.
//
// worldsrv may import it; it imports ether/proto only.
package etherlink
