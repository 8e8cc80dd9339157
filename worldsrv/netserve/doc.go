// Package netserve is the world's game listeners: the client protocol over
// TCP (the game port) and over WebSocket (/ws, one binary message per frame,
// length prefix included). Each connection is one engine.Conn with a reader
// goroutine (frames → Client.Deliver) and a writer goroutine (the engine's
// per-tick chunks, each write bounded by a deadline); nothing here ever
// waits for the tick. Only worldsrv's wiring imports it.
//
// Closing rules, each counted in Stats:
//   - Attach refused (engine.ErrBusy, the accept queue is full): closed at once.
//   - a header over proto.MaxPayload, a WebSocket message that is not one
//     frame, a payload that does not decode: closed at once.
//   - a full inbound queue: the engine hangs the client up (flooding); the
//     reader stops and the writer closes once the engine is done.
//   - a write that misses its deadline (a client that does not read): closed.
//
// The per-address connection bound is the engine's (Config.MaxPerAddress):
// a connection beyond it is answered LoginResponse 9 at its Login, then
// closed.
//
// Shutdown: StopAccepting (listeners closed, /ws answers 503), then the
// engine logs everyone out (its Run returns), then Close writes what the
// engine queued and closes every connection still open.
package netserve
