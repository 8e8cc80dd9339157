package proto

import (
	"reflect"
	"testing"
)

// DecodeOutboundCopy returns every outbound message (every row of the
// table: a message added to it is covered without a word here) as a value
// equal to the vector's, sharing nothing with the payload: overwriting the
// payload afterwards changes nothing.
func TestDecodeOutboundCopy_EveryOutboundMessageIsAValueOfItsOwn(t *testing.T) {
	seen := map[Op]bool{}
	for _, v := range vectors {
		if !v.msg.Op().Outbound() {
			if _, err := DecodeOutboundCopy(v.payload); err == nil {
				t.Errorf("%s: an inbound message decoded as outbound", v.name)
			}
			continue
		}
		seen[v.msg.Op()] = true
		p := append([]byte(nil), v.payload...)
		m, err := DecodeOutboundCopy(p)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if reflect.TypeOf(m).Kind() == reflect.Pointer {
			t.Fatalf("%s: %T is a pointer, want a value", v.name, m)
		}
		for i := 1; i < len(p); i++ {
			p[i] ^= 0xff
		}
		if !reflect.DeepEqual(canon(m), canon(v.msg)) {
			t.Errorf("%s: after the payload changed: %#v, want %#v", v.name, m, v.msg)
		}
	}
	for i := range 256 {
		if op := Op(i); op.Outbound() && !seen[op] {
			t.Errorf("%v: no vector", op)
		}
	}
	if _, err := DecodeOutboundCopy([]byte{byte(OpPlayerSaveAck), 1}); err == nil {
		t.Error("a short PlayerSaveAck decoded")
	}
}
