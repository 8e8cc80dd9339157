// Package admin is the world server's admin console, server side: command
// parsing and replies, a Valve Source RCON server and a Rust-style WebRCON
// http.Handler, both behind one password with per-address rate limiting of
// failed logins. It knows nothing of the engine: the engine implements
// Console, and every command reaches the world through it.
package admin
