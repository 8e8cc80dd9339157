package proto

import (
	"fmt"

	"github.com/corrosion/corrosion/internal/frame"
)

// Sentinel errors. The errors this package returns wrap one of them (test
// with errors.Is) and name the opcode involved, as in
// "decode PlayerLogin (1): payload is 9 bytes, want 11: proto: wrong payload length".
// They are internal/frame's, which worldsrv/proto returns too.
var (
	// ErrEmpty: a zero-length payload, which has no opcode.
	ErrEmpty = frame.ErrEmpty
	// ErrUnknownOp: an opcode the table does not define, or one that is
	// defined for the other direction.
	ErrUnknownOp = frame.ErrUnknownOp
	// ErrLength: a fixed-size message of the wrong length, a variable-size
	// one shorter than its fixed head, or an UpdateIgnoreList whose length
	// does not match its count.
	ErrLength = frame.ErrLength
	// ErrTooLarge: a payload longer than MaxPayload, which a frame cannot carry.
	ErrTooLarge = frame.ErrTooLarge
)

// The error constructors below are kept out of line so that the checks on
// the decoding path stay small enough to inline.

// decodeError names the message whose payload p broke err, a rule of its
// fields.
func decodeError(p []byte, err error) error {
	op := Op(p[0])
	return fmt.Errorf("decode %s (%d): %w", op, uint8(op), err)
}

func countError(p []byte, want, count int) error {
	return decodeError(p, frame.CountError(len(p), want, count))
}

// reject explains why a decoder for dir will not decode payload, which
// accepts refused: it is empty, its opcode is not one dir defines, or its
// length breaks the opcode's size rule (that error names the message, not
// the direction).
func reject(payload []byte, dir direction) error {
	prefix := "decode"
	if dir != eitherWay {
		prefix += " " + dir.String()
	}
	if len(payload) == 0 {
		return frame.Reject(prefix, payload, nil)
	}
	op := Op(payload[0])
	row := &ops[op]
	switch {
	case row.dir == 0:
		return frame.Reject(prefix, payload, &row.Row)
	case row.dir&dir == 0: // defined, but for the other direction
		return fmt.Errorf("%s: %s (%d) is not an %s opcode: %w", prefix, op, uint8(op), dir, ErrUnknownOp)
	}
	return frame.Reject("decode", payload, &row.Row)
}
