package proto

import "encoding/binary"

// Field helpers shared by the message files. All integers are big-endian.

var be = binary.BigEndian

// appendPair appends an opcode and two u64s, the head of many messages.
func appendPair(b []byte, op Op, x, y uint64) []byte {
	return be.AppendUint64(be.AppendUint64(append(b, byte(op)), x), y)
}

// boolByte encodes a bool as the u8 0 or 1.
func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// rest returns p[off:], capped so that appending to it cannot write into
// whatever follows the payload in the caller's buffer.
func rest(p []byte, off int) []byte { return p[off:len(p):len(p)] }
