package frame

import (
	"fmt"
	"math"
	"strconv"
)

// What the two codecs' opcode tables share: a row's name and size rule,
// and the errors of a payload a table refuses.

// Size is a message's payload length rule, opcode included: between Min
// and Max bytes. A fixed-size message has Min = Max; one that ends in a
// variable field has its fixed head as Min. The zero Size fits only an
// empty payload, which every codec refuses before it looks at a rule, so
// it is what an undefined opcode's table row holds.
type Size struct{ Min, Max int }

// Fixed is the rule of a message of exactly n bytes.
func Fixed(n int) Size { return Size{Min: n, Max: n} }

// Between is the rule of a variable-size message: at least its fixed head
// lo, at most hi bytes (what its fields can hold, or the codec's cap).
func Between(lo, hi int) Size { return Size{Min: lo, Max: hi} }

// AtLeast is the rule of a message whose fixed head of n bytes is followed
// by a variable field, with no bound above (a frame cannot carry more than
// its codec's cap, but a payload handed to a decoder may be longer).
func AtLeast(n int) Size { return Size{Min: n, Max: math.MaxInt} }

// Fits reports whether a payload of n bytes has the rule's length.
func (s Size) Fits(n int) bool { return n >= s.Min && n <= s.Max }

// Variable reports whether the rule is that of a variable-size message.
func (s Size) Variable() bool { return s.Max != s.Min }

// String is the rule as the length errors say it: "11", "at least 11" or
// "3–513".
func (s Size) String() string {
	switch {
	case !s.Variable():
		return strconv.Itoa(s.Min)
	case s.Max == math.MaxInt:
		return "at least " + strconv.Itoa(s.Min)
	}
	return strconv.Itoa(s.Min) + "–" + strconv.Itoa(s.Max)
}

// Row is what a codec's opcode table says about one opcode that its
// errors and its length check use; a codec's table row embeds it.
type Row struct {
	Name string // the message's name, its Go type's; "" for an undefined opcode
	Size Size   // its payload length, opcode included
}

// Reject explains why a codec's table refused payload, which row (the row
// of payload's opcode; nil for an empty payload) describes: it is empty,
// its opcode is undefined, or its length breaks row's size rule. prefix
// says who refused it ("decode", "decode client"), as in
// "decode client Login (1): payload is 2 bytes, want 3–513: proto: wrong payload length".
func Reject(prefix string, payload []byte, row *Row) error {
	switch {
	case len(payload) == 0:
		return fmt.Errorf("%s: %w", prefix, ErrEmpty)
	case row.Name == "":
		return fmt.Errorf("%s: opcode %d: %w", prefix, payload[0], ErrUnknownOp)
	}
	return fmt.Errorf("%s %s (%d): payload is %d bytes, want %s: %w",
		prefix, row.Name, payload[0], len(payload), row.Size, ErrLength)
}

// CountError is ErrLength for a payload of n bytes that holds a list whose
// count says it should have want.
func CountError(n, want, count int) error {
	return fmt.Errorf("payload is %d bytes, want %d for count %d: %w", n, want, count, ErrLength)
}
