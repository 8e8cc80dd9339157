// Package webrcon is the JSON of Rust's WebRCON protocol, written once for
// the agent's client (agent/rcon), the world's server (worldsrv/admin) and
// the agent's test server (agent/rcon/rcontest): the command frame a client
// sends and the frame a server answers and broadcasts with. The WebSocket
// itself, and what each side does with a frame, stay with them.
package webrcon

import "strings"

// Request is a command frame, client → server. The server answers it with
// a Frame carrying the same Identifier; Name names the client.
type Request struct {
	Identifier int64  `json:"Identifier"`
	Message    string `json:"Message"`
	Name       string `json:"Name"`
}

// Frame is a frame a server sends: the reply to a Request (its
// Identifier), or a broadcast such as a chat or log line (identifier 0 or
// -1, or the echo below).
type Frame struct {
	Message    string `json:"Message"`
	Identifier int64  `json:"Identifier"`
	Type       string `json:"Type"`
	Stacktrace string `json:"Stacktrace"`
}

// Frame types (Rust's log types) that we send or expect.
const (
	TypeGeneric = "Generic" // a reply or a log line
	TypeError   = "Error"   // a failed command
	TypeChat    = "Chat"    // a chat broadcast
)

// EchoPrefix starts the server's log echo of a command it received
// ("[rcon] addr: command"), which Rust sends with the command's identifier
// before the reply.
const EchoPrefix = "[rcon] "

// IsReplyTo reports whether f is the reply to the request with identifier
// id: it carries id and is not the server's echo of the command.
func (f Frame) IsReplyTo(id int64) bool {
	return f.Identifier == id && !strings.HasPrefix(f.Message, EchoPrefix)
}
