package proto

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"
)

// Field helpers shared by the message files. All integers are big-endian.

var be = binary.BigEndian

// alias returns p as a string without copying: the string shares p's
// storage and changes if p is overwritten. Only a Decoder's messages hold
// such strings, and they are documented as valid until the buffer is reused.
func alias(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	return unsafe.String(&p[0], len(p))
}

// readStr8 reads the str8 field named field at p[off:]: a u8 byte count,
// then that many UTF-8 bytes. It returns the string (aliasing p) and the
// offset after it.
func readStr8(p []byte, off int, field string) (string, int, error) {
	if off >= len(p) {
		return "", off, str8Error(field, p, off, 0)
	}
	n := int(p[off])
	end := off + 1 + n
	if end > len(p) {
		return "", off, str8Error(field, p, off, n)
	}
	s := p[off+1 : end]
	if !utf8.Valid(s) {
		return "", off, utf8Error(field)
	}
	return alias(s), end, nil
}

// readRest reads the rest field at p[off:], which must be UTF-8.
func readRest(p []byte, off int, field string) (string, error) {
	s := p[off:]
	if !utf8.Valid(s) {
		return "", utf8Error(field)
	}
	return alias(s), nil
}

// appendStr8 appends s as a str8. A string over MaxStr8 bytes is cut to
// the last whole UTF-8 character that fits, so the field stays valid.
func appendStr8(b []byte, s string) []byte {
	if len(s) > MaxStr8 {
		s = s[:cutUTF8(s, MaxStr8)]
	}
	return append(append(b, byte(len(s))), s...)
}

// cutUTF8 returns the largest n ≤ limit such that s[:n] does not end inside
// a UTF-8 character.
func cutUTF8(s string, limit int) int {
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// appendName appends an opcode and a str8 name, the whole of four client
// messages.
func appendName(b []byte, op ClientOp, name string) []byte {
	return appendStr8(append(b, byte(op)), name)
}

// decodeName is the decode method of m, a message that is one str8 name:
// it sets *name, m's field, and returns m; on error it leaves m as it was.
func decodeName(m ClientMessage, name *string, p []byte) (ClientMessage, error) {
	s, end, err := readStr8(p, 1, "name")
	if err != nil {
		return nil, err
	}
	if end != len(p) {
		return nil, trailingError(p, end)
	}
	*name = s
	return m, nil
}

// readModes decodes three chat modes at p[1:4].
func readModes(p []byte) (public, private, trade ChatMode, err error) {
	for i, field := range [3]string{"public", "private", "trade"} {
		if !ChatMode(p[1+i]).Valid() {
			return 0, 0, 0, modeError(field, p[1+i])
		}
	}
	return ChatMode(p[1]), ChatMode(p[2]), ChatMode(p[3]), nil
}
