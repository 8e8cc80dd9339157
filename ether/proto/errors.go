package proto

import (
	"fmt"

	"github.com/corrosion/corrosion/internal/frame"
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
		return fmt.Errorf("%s: %s (%d) is not an %s opcode: %w", prefix, op, uint8(op), dir, frame.ErrUnknownOp)
	}
	return frame.Reject("decode", payload, &row.Row)
}
