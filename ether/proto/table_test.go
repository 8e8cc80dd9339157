package proto

import (
	"reflect"
	"testing"

	"github.com/corrosion/corrosion/internal/frame"
)

// Every row of the opcode table makes a message of its own opcode, named as
// its type, with the seed's size; every other row is empty.
func TestOpTable_Rows(t *testing.T) {
	for i := range 256 {
		op, row := Op(i), ops[i]
		if row.dir == 0 {
			if row.Name != "" || row.Size != (frame.Size{}) || row.new != nil {
				t.Errorf("opcode %d: a row without a direction: %q %+v", i, row.Name, row.Size)
			}
			continue
		}
		m, ok := row.new().(Message)
		if !ok {
			t.Errorf("%v: the row makes %T, not a Message", op, row.new())
			continue
		}
		if m.Op() != op {
			t.Errorf("opcode %d: the row makes %T, whose Op() is %v", i, m, m.Op())
		}
		if name := reflect.TypeOf(m).Elem().Name(); name != row.Name {
			t.Errorf("opcode %d: the row is named %q but makes %s", i, row.Name, name)
		}
		if row.new() == row.new() && reflect.TypeOf(m).Elem().Size() > 0 {
			t.Errorf("%v: the row's constructor returns the same message twice", op)
		}
		want, ok := fixedSizes[op]
		if ok && row.Size != frame.Fixed(want) {
			t.Errorf("%v: size %+v, want exactly %d", op, row.Size, want)
		}
		if head, variable := variableHeads[op]; variable && row.Size != frame.AtLeast(head) {
			t.Errorf("%v: size %+v, want at least %d", op, row.Size, head)
		} else if !ok && !variable {
			t.Errorf("%v: in the table but in neither fixedSizes nor variableHeads", op)
		}
	}
}

// A variable-size message has no upper bound in the decoders: a payload
// longer than a frame can carry still decodes (only AppendFrame refuses it).
func TestDecode_VariableSizeHasNoUpperBound(t *testing.T) {
	p := cat(hx("0a | 0000000000000007"), make([]byte, MaxPayload))
	var d Decoder
	for name, dec := range map[string]func([]byte) (Message, error){"Decode": Decode, "Decoder.Decode": d.Decode} {
		m, err := dec(p)
		if err != nil {
			t.Fatalf("%s of a %d-byte PlayerSaveRequest: %v", name, len(p), err)
		}
		if got := len(m.(*PlayerSaveRequest).SaveData); got != MaxPayload {
			t.Errorf("%s: %d bytes of save data, want %d", name, got, MaxPayload)
		}
	}
}
