package proto

import (
	"bytes"

	"github.com/corrosion/corrosion/internal/frame"
)

// How the errors of the two directions begin.
const (
	clientDir = "decode client"
	worldDir  = "decode world"
)

// DecodeClient decodes the payload of a frame a client sent into a newly
// allocated message and returns a pointer to it (*Login etc.). The message
// owns its strings (they are copied out of payload). Errors wrap ErrEmpty,
// ErrUnknownOp, ErrLength, ErrBadString, ErrBadUTF8, ErrTextLength or
// ErrBadMode.
func DecodeClient(payload []byte) (ClientMessage, error) {
	return decodeTable(&clientOps, clientDir, nil, payload)
}

// DecodeWorld decodes the payload of a frame the world sent, like
// DecodeClient. Errors wrap ErrEmpty, ErrUnknownOp, ErrLength, ErrBadUTF8,
// ErrBadMode or ErrTooMany.
func DecodeWorld(payload []byte) (WorldMessage, error) {
	return decodeTable(&worldOps, worldDir, nil, payload)
}

// A Decoder decodes into storage of its own, one message per opcode and
// direction, so decoding allocates nothing (IgnoreList and Nearby grow
// their slices, then reuse them).
//
// The message returned points into the Decoder and is valid only until
// the Decoder's next call. Its string fields alias the payload: they are
// valid only until the payload's buffer is reused (the next ReadFrame into
// it), and they change when it is. Copy what must live longer
// (strings.Clone, or the struct with cloned strings). The zero value is
// ready to use; a Decoder is not safe for concurrent use. One per
// connection is the intended use.
type Decoder struct {
	c clientMsgs // what DecodeClient decodes into
	w worldMsgs  // what DecodeWorld decodes into
}

// clientMsgs is a Decoder's storage for the client → world messages.
type clientMsgs struct {
	login          Login
	logout         Logout
	friendAdd      FriendAdd
	friendDel      FriendDel
	ignoreAdd      IgnoreAdd
	ignoreDel      IgnoreDel
	privateMessage PrivateMessage
	chatSettings   ChatSettings
	keepalive      Keepalive
	walk           Walk
}

// worldMsgs is a Decoder's storage for the world → client messages.
type worldMsgs struct {
	loginResponse    LoginResponse
	friendStatus     FriendStatus
	ignoreList       IgnoreList
	privateMessageIn PrivateMessageIn
	friendListLoaded FriendListLoaded
	chatSettingsNow  ChatSettingsNow
	systemMessage    SystemMessage
	loggedOut        LoggedOut
	mapInfo          MapInfo
	position         Position
	nearby           Nearby
}

// DecodeClient is the package's DecodeClient, into the Decoder's storage
// and with strings aliasing payload.
func (d *Decoder) DecodeClient(payload []byte) (ClientMessage, error) {
	return decodeTable(&clientOps, clientDir, d, payload)
}

// DecodeWorld is the package's DecodeWorld, into the Decoder's storage and
// with strings aliasing payload.
func (d *Decoder) DecodeWorld(payload []byte) (WorldMessage, error) {
	return decodeTable(&worldOps, worldDir, d, payload)
}

// decodeTable decodes payload by the row of table its opcode selects: into
// d's storage, or into a new message owning a copy of payload when d is nil.
func decodeTable[M Message](table *[256]opInfo[M], dir string, d *Decoder, payload []byte) (M, error) {
	var zero M
	if len(payload) == 0 {
		return zero, frame.Reject(dir, payload, nil)
	}
	row := &table[payload[0]]
	if !row.Size.Fits(len(payload)) {
		return zero, frame.Reject(dir, payload, &row.Row)
	}
	var into decodable[M]
	if d != nil {
		into = row.slot(d)
	} else {
		into, payload = row.new(), bytes.Clone(payload)
	}
	m, err := into.decode(payload)
	if err != nil {
		return zero, fieldError(payload, dir, &row.Row, err)
	}
	return m, nil
}
