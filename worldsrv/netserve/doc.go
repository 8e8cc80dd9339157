// Package netserve is the world's game listeners: the client protocol over
// TCP (the game port) and over WebSocket (/ws, one binary message per frame,
// length prefix included). Each connection is one engine.Conn with a reader
// goroutine (frames → Client.Deliver) and a writer goroutine (the engine's
// per-tick chunks, each write bounded by a deadline); nothing here ever
// waits for the tick. Only worldsrv's wiring imports it.
//
// Closing rules, each counted in Stats:
//   - Attach refused (engine.ErrBusy, the accept queue is full): ended at
//     once.
//   - a header over proto.MaxPayload, a WebSocket message that is not one
//     frame (or is text, or over proto.MaxFrame), a payload that does not
//     decode: ended at once.
//   - a full inbound queue: the engine hangs the client up (flooding); the
//     reader stops and the writer ends the connection once the engine is
//     done.
//   - a write that misses its deadline (a client that does not read):
//     closed at once.
//
// "Ended" is a WebSocket close frame whose code says why (closeReason,
// close.go; the engine being done with a client is 1000, or 1001 once the
// world stops accepting), then a wait of at most closeHandshakeWait (1 s)
// for the peer's close frame on the reader's or writer's goroutine, never
// the tick's; the socket is closed when it comes or the wait runs out. A
// TCP connection just closes. "Closed" (Conn.Close, a slow reader, Close's
// deadline) sends no close frame and waits for nothing.
//
// The per-address connection bound is the engine's (Config.MaxPerAddress):
// a connection beyond it is answered LoginResponse 9 at its Login, then
// closed.
//
// Shutdown: StopAccepting (listeners closed, /ws answers 503), then the
// engine logs everyone out (its Run returns), then Close writes what the
// engine queued and closes every connection still open.
package netserve
