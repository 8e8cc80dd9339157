package proto

import (
	"errors"
	"fmt"
)

// Sentinel errors. The errors this package returns wrap one of them (test
// with errors.Is) and name the opcode involved, as in
// "decode PlayerLogin (1): payload is 9 bytes, want 11: proto: wrong payload length".
var (
	// ErrEmpty: a zero-length payload, which has no opcode.
	ErrEmpty = errors.New("proto: empty payload")
	// ErrUnknownOp: an opcode the table does not define, or one that is
	// defined for the other direction.
	ErrUnknownOp = errors.New("proto: unknown opcode")
	// ErrLength: a fixed-size message of the wrong length, a variable-size
	// one shorter than its fixed head, or an UpdateIgnoreList whose length
	// does not match its count.
	ErrLength = errors.New("proto: wrong payload length")
	// ErrTooLarge: a payload longer than MaxPayload, which a frame cannot carry.
	ErrTooLarge = errors.New("proto: payload too large")
)

// exactLen checks a fixed-size payload's length.
func exactLen(p []byte, want int) error {
	if len(p) != want {
		return lengthError(p, "", want)
	}
	return nil
}

// minLen checks that a variable-size payload holds its fixed head.
func minLen(p []byte, head int) error {
	if len(p) < head {
		return lengthError(p, "at least ", head)
	}
	return nil
}

// The error constructors below are kept out of line so that the checks on
// the decoding path stay small enough to inline.

func lengthError(p []byte, qual string, want int) error {
	op := Op(p[0])
	return fmt.Errorf("decode %s (%d): payload is %d bytes, want %s%d: %w",
		op, uint8(op), len(p), qual, want, ErrLength)
}

func countError(p []byte, want, count int) error {
	op := Op(p[0])
	return fmt.Errorf("decode %s (%d): payload is %d bytes, want %d for count %d: %w",
		op, uint8(op), len(p), want, count, ErrLength)
}

// refuse explains why a decoder for dir ("inbound", "outbound", or "" for
// either) will not decode payload: it is empty, or its opcode is not one
// dir defines.
func refuse(payload []byte, dir string) error {
	prefix := "decode"
	if dir != "" {
		prefix += " " + dir
	}
	if len(payload) == 0 {
		return fmt.Errorf("%s: %w", prefix, ErrEmpty)
	}
	op := Op(payload[0])
	if op.Inbound() || op.Outbound() { // defined, but for the other direction
		return fmt.Errorf("%s: %s (%d) is not an %s opcode: %w", prefix, op, uint8(op), dir, ErrUnknownOp)
	}
	return fmt.Errorf("%s: opcode %d: %w", prefix, uint8(op), ErrUnknownOp)
}
