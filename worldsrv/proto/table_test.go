package proto

import (
	"reflect"
	"testing"

	"github.com/corrosion/corrosion/internal/frame"
)

// The sizes the protocol document gives each message, opcode included:
// exactly n bytes, or between a fixed head and what its fields can hold.
var (
	clientSizes = map[ClientOp]frame.Size{
		OpLogin:          frame.Between(3, 1+256+256),
		OpLogout:         frame.Between(1, 1),
		OpFriendAdd:      frame.Between(2, 1+256),
		OpFriendDel:      frame.Between(2, 1+256),
		OpIgnoreAdd:      frame.Between(2, 1+256),
		OpIgnoreDel:      frame.Between(2, 1+256),
		OpPrivateMessage: frame.Between(3, 1+256+80),
		OpChatSettings:   frame.Between(4, 4),
		OpKeepalive:      frame.Between(1, 1),
		OpWalk:           frame.Between(5, 5),
	}
	worldSizes = map[WorldOp]frame.Size{
		OpLoginResponse:    frame.Between(2, 5),
		OpFriendStatus:     frame.Between(10, 10),
		OpIgnoreList:       frame.Between(3, 4096),
		OpPrivateMessageIn: frame.Between(14, 4096),
		OpFriendListLoaded: frame.Between(1, 1),
		OpChatSettingsNow:  frame.Between(4, 4),
		OpSystemMessage:    frame.Between(1, 4096),
		OpLoggedOut:        frame.Between(2, 2),
		OpMapInfo:          frame.Between(14, 14),
		OpPosition:         frame.Between(5, 5),
		OpNearby:           frame.Between(3, 3+14*255),
	}
)

// Every row of both tables makes a message of its own opcode, named as its
// type, with the document's size, and decodes into its own Decoder field;
// every other row is empty.
func TestOpTables_Rows(t *testing.T) {
	for i := range 256 {
		checkRow(t, "client", i, clientSizes[ClientOp(i)], viewRow(clientOps[i]))
		checkRow(t, "world", i, worldSizes[WorldOp(i)], viewRow(worldOps[i]))
	}
}

// rowView is a table row seen without its direction's type.
type rowView struct {
	meta  frame.Row
	fresh any    // what the constructor makes; nil for an empty row
	op    int    // fresh's opcode
	slots [2]any // the row's slot in two different Decoders
}

func viewRow[M Message](row opInfo[M]) rowView {
	v := rowView{meta: row.Row, op: -1}
	if row.new == nil {
		return v
	}
	var d1, d2 Decoder
	v.fresh = row.new()
	switch m := v.fresh.(type) {
	case ClientMessage:
		v.op = int(m.Op())
	case WorldMessage:
		v.op = int(m.Op())
	}
	v.slots = [2]any{row.slot(&d1), row.slot(&d2)}
	return v
}

func checkRow(t *testing.T, dir string, i int, want frame.Size, v rowView) {
	t.Helper()
	meta, fresh, op, slots := v.meta, v.fresh, v.op, v.slots
	if fresh == nil {
		if meta != (frame.Row{}) || want != (frame.Size{}) {
			t.Errorf("%s opcode %d: row %+v without a constructor (document says %+v)", dir, i, meta, want)
		}
		return
	}
	if op != i {
		t.Errorf("%s opcode %d: the row makes %T, whose opcode is %d", dir, i, fresh, op)
	}
	if name := reflect.TypeOf(fresh).Elem().Name(); name != meta.Name {
		t.Errorf("%s opcode %d: the row is named %q but makes %s", dir, i, meta.Name, name)
	}
	if meta.Size != want {
		t.Errorf("%s %s: size %+v, document says %+v", dir, meta.Name, meta.Size, want)
	}
	if reflect.TypeOf(slots[0]) != reflect.TypeOf(fresh) {
		t.Errorf("%s %s: slot holds %T", dir, meta.Name, slots[0])
	}
	if reflect.TypeOf(fresh).Elem().Size() > 0 && slots[0] == slots[1] {
		t.Errorf("%s %s: two Decoders share a slot", dir, meta.Name)
	}
}

// No two opcodes of a direction decode into the same Decoder field.
func TestDecoder_SlotsDistinct(t *testing.T) {
	var d Decoder
	seen := map[any]string{}
	for i := range 256 {
		for _, s := range []struct {
			name string
			slot any
		}{
			{clientOps[i].Name, slotOf(clientOps[i], &d)},
			{worldOps[i].Name, slotOf(worldOps[i], &d)},
		} {
			if s.slot == nil || reflect.TypeOf(s.slot).Elem().Size() == 0 {
				continue
			}
			if prev, dup := seen[s.slot]; dup {
				t.Errorf("%s and %s share a Decoder field", prev, s.name)
			}
			seen[s.slot] = s.name
		}
	}
}

func slotOf[M Message](row opInfo[M], d *Decoder) any {
	if row.slot == nil {
		return nil
	}
	return row.slot(d)
}
