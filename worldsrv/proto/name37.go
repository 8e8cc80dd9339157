package proto

import "fmt"

// name37 is the classic player-name encoding: a name of at most 12
// characters as a base-37 number in a u64. A player's name37 is also its
// user37 in the ether protocol.

// MaxNameLen is the longest name, in characters (each one byte).
const MaxNameLen = 12

// MaxName37 is the largest name37 value: that of a 12-character name of
// nines, 37^12 - 1.
const MaxName37 uint64 = 37*37*37*37*37*37*37*37*37*37*37*37 - 1

// ValidName reports whether name can be a player's name: 1–MaxNameLen
// characters of a–z, 0–9, '_' and space, not starting or ending with '_'
// or space. Upper-case A–Z count as their lower-case letters, since
// EncodeName lower-cases (so "Zezima" and "zezima" are the same player).
func ValidName(name string) bool { return validName(name) }

func validName[S ~string | ~[]byte](name S) bool {
	if len(name) == 0 || len(name) > MaxNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; digit37(c) == 0 && c != '_' && c != ' ' {
			return false
		}
	}
	return digit37(name[0]) != 0 && digit37(name[len(name)-1]) != 0
}

// EncodeName returns the name37 value of a valid name: lower-cased, each
// character mapped a–z → 1–26, 0–9 → 27–36, '_' and space → 0, and
// accumulated as v = v*37 + c. A name that is not ValidName is
// ErrInvalidName.
func EncodeName(name string) (uint64, error) {
	if !validName(name) {
		return 0, fmt.Errorf("encode name %q: %w", name, ErrInvalidName)
	}
	return encode37(name), nil
}

// encode37 is the classic encoding of any string: characters past the
// twelfth are ignored, any other than a–z A–Z 0–9 count as 0, and trailing
// zero digits (trailing spaces) are removed. On a valid name it is the
// plain accumulation, which ends in a non-zero digit.
func encode37[S ~string | ~[]byte](name S) uint64 {
	var v uint64
	for i := 0; i < len(name) && i < MaxNameLen; i++ {
		v = v*37 + uint64(digit37(name[i]))
	}
	for v != 0 && v%37 == 0 {
		v /= 37
	}
	return v
}

// digit37 maps a character to its base-37 digit: a–z and A–Z → 1–26,
// 0–9 → 27–36, anything else → 0.
func digit37(c byte) byte {
	switch {
	case c >= 'a' && c <= 'z':
		return c - 'a' + 1
	case c >= 'A' && c <= 'Z':
		return c - 'A' + 1
	case c >= '0' && c <= '9':
		return c - '0' + 27
	}
	return 0
}

// nameChars maps a base-37 digit to its lower-case character; 0 is shown
// as a space.
const nameChars = " abcdefghijklmnopqrstuvwxyz0123456789"

// DecodeName returns the display form of a name37 value: its characters
// with '_' shown as a space and the first letter of each word capitalised
// ("iron_man" → "Iron Man"). A value that no name encodes to (0, or over
// MaxName37) gives "".
func DecodeName(v uint64) string {
	var buf [MaxNameLen]byte
	return string(AppendName(buf[:0], v))
}

// AppendName appends DecodeName(v) to dst without allocating when dst has
// room for MaxNameLen bytes.
func AppendName(dst []byte, v uint64) []byte {
	var digits [MaxNameLen]byte
	n := rawName(&digits, v)
	for i := range n {
		c := nameChars[digits[i]]
		if c >= 'a' && c <= 'z' && (i == 0 || digits[i-1] == 0) {
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// rawName writes v's base-37 digits, most significant first, to digits
// and returns how many there are: 0 when v is 0 or over MaxName37.
func rawName(digits *[MaxNameLen]byte, v uint64) int {
	if v == 0 || v > MaxName37 {
		return 0
	}
	n := 0
	for w := v; w != 0; w /= 37 {
		n++
	}
	for i := n - 1; i >= 0; i-- {
		digits[i] = byte(v % 37)
		v /= 37
	}
	return n
}

// ValidName37 reports whether v is the name37 of a valid name, which is
// what EncodeName can return: DecodeName(v) is then a name whose
// EncodeName is v again.
func ValidName37(v uint64) bool {
	var digits, name [MaxNameLen]byte
	n := rawName(&digits, v)
	for i := range n {
		name[i] = nameChars[digits[i]]
	}
	return validName(name[:n])
}
