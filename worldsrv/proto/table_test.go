package proto

import (
	"reflect"
	"testing"
)

// The sizes the protocol document gives each message, opcode included:
// exactly n bytes, or between a fixed head and what its fields can hold.
var (
	clientSizes = map[ClientOp]sizeRule{
		OpLogin:          {3, 1 + 256 + 256},
		OpLogout:         {1, 1},
		OpFriendAdd:      {2, 1 + 256},
		OpFriendDel:      {2, 1 + 256},
		OpIgnoreAdd:      {2, 1 + 256},
		OpIgnoreDel:      {2, 1 + 256},
		OpPrivateMessage: {3, 1 + 256 + 80},
		OpChatSettings:   {4, 4},
		OpKeepalive:      {1, 1},
		OpWalk:           {5, 5},
	}
	worldSizes = map[WorldOp]sizeRule{
		OpLoginResponse:    {2, 5},
		OpFriendStatus:     {10, 10},
		OpIgnoreList:       {3, 4096},
		OpPrivateMessageIn: {14, 4096},
		OpFriendListLoaded: {1, 1},
		OpChatSettingsNow:  {4, 4},
		OpSystemMessage:    {1, 4096},
		OpLoggedOut:        {2, 2},
		OpMapInfo:          {14, 14},
		OpPosition:         {5, 5},
		OpNearby:           {3, 3 + 14*255},
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
	meta  opMeta
	fresh any    // what the constructor makes; nil for an empty row
	op    int    // fresh's opcode
	slots [2]any // the row's slot in two different Decoders
}

func viewRow[M Message](row opInfo[M]) rowView {
	v := rowView{meta: row.opMeta, op: -1}
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

func checkRow(t *testing.T, dir string, i int, want sizeRule, v rowView) {
	t.Helper()
	meta, fresh, op, slots := v.meta, v.fresh, v.op, v.slots
	if fresh == nil {
		if meta != (opMeta{}) || want != (sizeRule{}) {
			t.Errorf("%s opcode %d: row %+v without a constructor (document says %+v)", dir, i, meta, want)
		}
		return
	}
	if op != i {
		t.Errorf("%s opcode %d: the row makes %T, whose opcode is %d", dir, i, fresh, op)
	}
	if name := reflect.TypeOf(fresh).Elem().Name(); name != meta.name {
		t.Errorf("%s opcode %d: the row is named %q but makes %s", dir, i, meta.name, name)
	}
	if meta.size != want {
		t.Errorf("%s %s: size %+v, document says %+v", dir, meta.name, meta.size, want)
	}
	if reflect.TypeOf(slots[0]) != reflect.TypeOf(fresh) {
		t.Errorf("%s %s: slot holds %T", dir, meta.name, slots[0])
	}
	if reflect.TypeOf(fresh).Elem().Size() > 0 && slots[0] == slots[1] {
		t.Errorf("%s %s: two Decoders share a slot", dir, meta.name)
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
			{clientOps[i].name, slotOf(clientOps[i], &d)},
			{worldOps[i].name, slotOf(worldOps[i], &d)},
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
