package proto

import (
	"errors"
	"fmt"

	"github.com/corrosion/corrosion/internal/frame"
)

// Sentinel errors. The errors this package returns wrap one of them (test
// with errors.Is) and name the message and field involved, as in
// "decode client PrivateMessage (7): text is 81 bytes, want 1–80: proto: text length out of range".
// A world closes the connection of a client whose frame fails to decode.
var (
	// ErrEmpty: a zero-length payload, which has no opcode. It, and the
	// three below, are internal/frame's, which ether/proto returns too.
	ErrEmpty = frame.ErrEmpty
	// ErrUnknownOp: an opcode the direction's table does not define.
	ErrUnknownOp = frame.ErrUnknownOp
	// ErrLength: a payload of the wrong length for its opcode: a fixed-size
	// message of another size, one shorter than its fixed head, bytes left
	// over after the last field, or a list whose length does not match its
	// count.
	ErrLength = frame.ErrLength
	// ErrTooLarge: a frame header announcing more than MaxPayload bytes, or
	// a message that would encode to more.
	ErrTooLarge = frame.ErrTooLarge
	// ErrBadFrame: a WebSocket message that is not exactly one frame.
	ErrBadFrame = errors.New("proto: message is not one frame")
	// ErrBadString: a str8 whose byte count runs past the end of the payload.
	ErrBadString = errors.New("proto: bad str8")
	// ErrBadUTF8: a str8 or rest field that is not valid UTF-8.
	ErrBadUTF8 = errors.New("proto: invalid utf-8")
	// ErrTextLength: a PrivateMessage text outside 1–MaxText bytes.
	ErrTextLength = errors.New("proto: text length out of range")
	// ErrBadMode: a chat mode other than 0, 1 or 2.
	ErrBadMode = errors.New("proto: bad chat mode")
	// ErrTooMany: a Nearby list of more than MaxNearby players.
	ErrTooMany = errors.New("proto: too many entries")
	// ErrInvalidName: a player name that name37 cannot encode (see ValidName).
	ErrInvalidName = errors.New("proto: invalid name")
)

// The error constructors are kept out of line so that the checks on the
// decoding path stay small. A payload the table refuses is explained by
// internal/frame's Reject.

// fieldError wraps the error a message's decode method returned with the
// message it was decoding.
func fieldError(payload []byte, dir string, row *frame.Row, err error) error {
	return fmt.Errorf("%s %s (%d): %w", dir, row.Name, payload[0], err)
}

// str8Error: a str8 field of n bytes starting at off runs past the end of p.
func str8Error(field string, p []byte, off, n int) error {
	return fmt.Errorf("%s: str8 of %d bytes at offset %d runs past the payload's %d bytes: %w",
		field, n, off, len(p), ErrBadString)
}

func utf8Error(field string) error { return fmt.Errorf("%s: %w", field, ErrBadUTF8) }

func trailingError(p []byte, end int) error {
	return fmt.Errorf("%d bytes after the last field: %w", len(p)-end, ErrLength)
}

func textLengthError(n int) error {
	return fmt.Errorf("text is %d bytes, want 1–%d: %w", n, MaxText, ErrTextLength)
}

func modeError(field string, m uint8) error {
	return fmt.Errorf("%s mode %d, want 0–2: %w", field, m, ErrBadMode)
}

func nearbyCountError(count int) error {
	return fmt.Errorf("count %d, at most %d: %w", count, MaxNearby, ErrTooMany)
}

func loginLengthError(p []byte, want int) error {
	return fmt.Errorf("code %d: payload is %d bytes, want %d: %w", p[1], len(p), want, ErrLength)
}
