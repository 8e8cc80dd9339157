// Package proto is the world client protocol codec: the frames a game client
// and worldsrv exchange over TCP and WebSocket (docs/world-protocol.md), the
// name37 player-name encoding, and a typed message per opcode in each
// direction. Both sides use it: the world decodes what clients send and
// encodes its answers, the bot client (and the tests) do the reverse.
//
// One opcode table per direction (table.go) drives the codec, in the shape
// of ether/proto's: a row per opcode with its name, size rule and storage.
// A message is a struct with Op, AppendPayload (encode) and decode (fill
// from a payload whose opcode and length the table has checked).
package proto

import "github.com/corrosion/corrosion/internal/frame"

// ClientOp is the opcode of a frame a client sends to the world, the first
// byte of its payload. The client table (table.go) says what each means.
type ClientOp uint8

// Client → world opcodes.
const (
	OpLogin          ClientOp = 1
	OpLogout         ClientOp = 2
	OpFriendAdd      ClientOp = 3
	OpFriendDel      ClientOp = 4
	OpIgnoreAdd      ClientOp = 5
	OpIgnoreDel      ClientOp = 6
	OpPrivateMessage ClientOp = 7
	OpChatSettings   ClientOp = 8
	OpKeepalive      ClientOp = 9
	OpWalk           ClientOp = 10
)

// WorldOp is the opcode of a frame the world sends to a client. The same
// numbers mean other messages than ClientOp's: the direction decides.
type WorldOp uint8

// World → client opcodes. Two messages share their protocol name with a
// client message and so have Go names of their own: ChatSettingsNow is the
// protocol's world → client ChatSettings (6), LoggedOut its Logout (8).
const (
	OpLoginResponse    WorldOp = 1
	OpFriendStatus     WorldOp = 2
	OpIgnoreList       WorldOp = 3
	OpPrivateMessageIn WorldOp = 4
	OpFriendListLoaded WorldOp = 5
	OpChatSettingsNow  WorldOp = 6
	OpSystemMessage    WorldOp = 7
	OpLoggedOut        WorldOp = 8
	OpMapInfo          WorldOp = 9
	OpPosition         WorldOp = 10
	OpNearby           WorldOp = 11
)

// Message is one frame's payload, in either direction.
type Message interface {
	// AppendPayload appends the payload (the opcode byte, then the
	// fields, big-endian) to dst and returns the extended slice. It
	// allocates nothing when dst has room.
	AppendPayload(dst []byte) []byte
}

// ClientMessage is a message a client sends to the world. Every such type
// implements it with value receivers, so both T and *T are ClientMessages;
// the decoders return pointers (*Login etc.).
type ClientMessage interface {
	Message
	Op() ClientOp
}

// WorldMessage is a message the world sends to a client, implemented like
// ClientMessage.
type WorldMessage interface {
	Message
	Op() WorldOp
}

const (
	// HeaderLen is the size of the frame header: the u16 payload length.
	HeaderLen = frame.HeaderLen
	// MaxPayload is the largest payload a frame may carry, opcode included.
	// A header announcing more is ErrTooLarge, and the connection closes.
	MaxPayload = 4096
	// MaxFrame is the largest whole frame, header included.
	MaxFrame = HeaderLen + MaxPayload
)
