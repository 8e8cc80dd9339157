package proto

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/frame"
)

func TestOp_String(t *testing.T) {
	names := map[Op]string{
		0: "WorldRegister", 1: "PlayerLogin", 2: "PlayerLogout", 3: "FriendAdd", 4: "FriendDel",
		5: "IgnoreAdd", 6: "IgnoreDel", 7: "PrivateMessage", 8: "RequestLists", 9: "ChatModeUpdate",
		10: "PlayerSaveRequest", 11: "PlayerLoadRequest", 12: "PlayerResync", 13: "LoginCheck",
		14: "RefreshAll", 15: "LinkAuth", 16: "LinkChallenge", 17: "WorldInfo", 18: "LoginRelease", 19: "FeatureQuery", 128: "UpdateFriendList", 129: "UpdateIgnoreList", 130: "MessagePrivate",
		131: "FriendListComplete", 132: "PlayerLoadResponse", 133: "PlayerSaveAck",
		134: "LoginCheckResponse", 135: "LinkProof", 136: "Features",
	}
	for i := range 256 {
		op := Op(i)
		want, ok := names[op]
		if !ok {
			want = "Op(" + strconv.Itoa(i) + ")"
		}
		if got := op.String(); got != want {
			t.Errorf("Op(%d).String() = %q, want %q", i, got, want)
		}
		if got, want := op.Inbound(), i <= 19; got != want {
			t.Errorf("Op(%d).Inbound() = %v, want %v", i, got, want)
		}
		if got, want := op.Outbound(), i >= 128 && i <= 136; got != want {
			t.Errorf("Op(%d).Outbound() = %v, want %v", i, got, want)
		}
	}
}

func TestMessage_Op(t *testing.T) {
	for _, v := range vectors {
		if got, want := v.msg.Op(), Op(v.payload[0]); got != want {
			t.Errorf("%s: Op() = %v, want %v", v.name, got, want)
		}
		if got := ptrTo(v.msg).Op(); got != v.msg.Op() {
			t.Errorf("%s: pointer Op() = %v, want %v", v.name, got, v.msg.Op())
		}
	}
}

func TestAppendPayload_Vectors(t *testing.T) {
	for _, v := range vectors {
		if v.decodeOnly {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			if got := v.msg.AppendPayload(nil); !bytes.Equal(got, v.payload) {
				t.Errorf("AppendPayload =\n% x\nwant\n% x", got, v.payload)
			}
			if got := ptrTo(v.msg).AppendPayload(nil); !bytes.Equal(got, v.payload) {
				t.Errorf("pointer AppendPayload =\n% x\nwant\n% x", got, v.payload)
			}
			prefix := []byte("prefix")
			got := v.msg.AppendPayload(prefix[:len(prefix):len(prefix)])
			if !bytes.Equal(got, cat(prefix, v.payload)) {
				t.Errorf("AppendPayload after a prefix =\n% x", got)
			}
		})
	}
}

func TestDecode_Vectors(t *testing.T) {
	var d Decoder
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			want := ptrTo(v.msg)
			inbound := v.msg.Op().Inbound()
			decoders := []struct {
				name string
				fn   func([]byte) (Message, error)
				ok   bool
			}{
				{"Decode", Decode, true},
				{"DecodeInbound", DecodeInbound, inbound},
				{"DecodeOutbound", DecodeOutbound, !inbound},
				{"Decoder.Decode", d.Decode, true},
				{"Decoder.DecodeInbound", d.DecodeInbound, inbound},
				{"Decoder.DecodeOutbound", d.DecodeOutbound, !inbound},
			}
			for _, dec := range decoders {
				got, err := dec.fn(v.payload)
				if !dec.ok {
					if !errors.Is(err, frame.ErrUnknownOp) || got != nil {
						t.Errorf("%s = %v, %v; want nil, frame.ErrUnknownOp", dec.name, got, err)
					} else if !strings.Contains(err.Error(), v.msg.Op().String()) {
						t.Errorf("%s: error %q does not name %v", dec.name, err, v.msg.Op())
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", dec.name, err)
				}
				if !sameMessage(got, want) {
					t.Errorf("%s = %#v, want %#v", dec.name, got, want)
				}
				if reflect.ValueOf(got).Kind() != reflect.Pointer {
					t.Errorf("%s returned %T, want a pointer", dec.name, got)
				}
			}
		})
	}
}

// Variable fields alias the payload, capped at its end.
func TestDecode_BodyAliasesPayload(t *testing.T) {
	buf := make([]byte, 0, 64)
	buf = append(buf, hx("07 | 0000000000000001 | 0000000000000002 | 02 | 6869")...)
	m, err := Decode(buf)
	if err != nil {
		t.Fatal(err)
	}
	body := m.(*PrivateMessage).Body
	if &body[0] != &buf[18] {
		t.Error("Body does not alias the payload")
	}
	if cap(body) != 2 {
		t.Errorf("cap(Body) = %d, want 2 (capped at the payload's end)", cap(body))
	}
}

// A list decoded by a Decoder reuses its storage; one from Decode is fresh.
func TestDecoder_UpdateIgnoreList_ReusesStorage(t *testing.T) {
	var d Decoder
	three := hx("81 | 0000000000000005 | 0003 | 0000000000000001 0000000000000002 0000000000000003")
	one := hx("81 | 0000000000000005 | 0001 | 0000000000000009")
	m1, err := d.DecodeOutbound(three)
	if err != nil {
		t.Fatal(err)
	}
	first := &m1.(*UpdateIgnoreList).Ignores[0]
	m2, err := d.DecodeOutbound(one)
	if err != nil {
		t.Fatal(err)
	}
	got := m2.(*UpdateIgnoreList).Ignores
	if len(got) != 1 || got[0] != 9 || &got[0] != first {
		t.Errorf("second decode: Ignores = %v (reused storage: %v)", got, &got[0] == first)
	}
	zero, err := d.DecodeOutbound(hx("81 | 0000000000000005 | 0000"))
	if err != nil || len(zero.(*UpdateIgnoreList).Ignores) != 0 {
		t.Errorf("count 0: %v, %v", zero, err)
	}
}

func TestDecode_WrongLength_FixedSize(t *testing.T) {
	for op, size := range fixedSizes {
		for _, n := range []int{size - 1, size + 1} {
			if n == 0 {
				continue // RefreshAll one short is the empty payload: TestDecode_Empty
			}
			p := make([]byte, n)
			p[0] = byte(op)
			t.Run(op.String()+"/"+strconv.Itoa(n), func(t *testing.T) {
				checkAllRefuse(t, p, frame.ErrLength, op.String())
			})
		}
	}
	// The same from the hand-written vectors: one byte cut off, one added.
	for _, v := range vectors {
		if _, fixed := fixedSizes[v.msg.Op()]; !fixed || len(v.payload) == 1 {
			continue
		}
		t.Run(v.name+"/short", func(t *testing.T) {
			checkAllRefuse(t, v.payload[:len(v.payload)-1], frame.ErrLength, v.msg.Op().String())
		})
		t.Run(v.name+"/long", func(t *testing.T) {
			checkAllRefuse(t, cat(v.payload, []byte{0}), frame.ErrLength, v.msg.Op().String())
		})
	}
}

func TestDecode_WrongLength_VariableHead(t *testing.T) {
	for op, head := range variableHeads {
		for n := 1; n < head; n++ {
			p := make([]byte, n)
			p[0] = byte(op)
			t.Run(op.String()+"/"+strconv.Itoa(n), func(t *testing.T) {
				checkAllRefuse(t, p, frame.ErrLength, op.String())
			})
		}
	}
}

func TestDecode_UpdateIgnoreList_CountMismatch(t *testing.T) {
	tests := []struct {
		name    string
		payload []byte
	}{
		{"count 1, no entries", hx("81 | 0000000000000005 | 0001")},
		{"count 0, one entry", hx("81 | 0000000000000005 | 0000 | 0000000000000001")},
		{"count 2, one entry", hx("81 | 0000000000000005 | 0002 | 0000000000000001")},
		{"count 1, two entries", hx("81 | 0000000000000005 | 0001 | 0000000000000001 0000000000000002")},
		{"count 1, entry one short", hx("81 | 0000000000000005 | 0001 | 00000000000001")},
		{"count 1, entry one long", hx("81 | 0000000000000005 | 0001 | 0000000000000001 | 00")},
		{"count 0, trailing byte", hx("81 | 0000000000000005 | 0000 | 00")},
		{"count 65535, no entries", hx("81 | 0000000000000005 | ffff")},
		{"count 100, 99 entries", cat(hx("81 | 0000000000000006 | 0064"), ignores100Bytes[:99*8])},
		{"count 99, 100 entries", cat(hx("81 | 0000000000000006 | 0063"), ignores100Bytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkAllRefuse(t, tt.payload, frame.ErrLength, "UpdateIgnoreList")
		})
	}
}

func TestDecode_Empty(t *testing.T) {
	for _, p := range [][]byte{nil, {}} {
		checkAllRefuse(t, p, frame.ErrEmpty, "")
	}
}

// Opcodes the table does not define are unknown in every direction, with
// or without bytes after them.
func TestDecode_UndefinedOpcodes(t *testing.T) {
	for i := range 256 {
		op := Op(i)
		if op.Inbound() || op.Outbound() {
			continue
		}
		if i >= 18 && i <= 127 || i >= 136 {
			for _, p := range [][]byte{{byte(op)}, cat([]byte{byte(op)}, hx("0000000000000001 0001"))} {
				checkAllRefuse(t, p, frame.ErrUnknownOp, strconv.Itoa(i))
			}
			continue
		}
		t.Errorf("opcode %d is neither defined nor in 18–127, 136–255", i)
	}
}

// Outbound opcodes arriving inbound, and inbound ones arriving outbound,
// are unknown to that direction whatever their length.
func TestDecode_WrongDirection(t *testing.T) {
	var d Decoder
	for _, v := range vectors {
		op := v.msg.Op()
		dirs := []func([]byte) (Message, error){DecodeInbound, d.DecodeInbound}
		if op.Inbound() {
			dirs = []func([]byte) (Message, error){DecodeOutbound, d.DecodeOutbound}
		}
		for _, p := range [][]byte{v.payload, v.payload[:1]} {
			for _, dec := range dirs {
				m, err := dec(p)
				if m != nil || !errors.Is(err, frame.ErrUnknownOp) {
					t.Errorf("%s (%d bytes) in the wrong direction = %v, %v; want frame.ErrUnknownOp", v.name, len(p), m, err)
				} else if !strings.Contains(err.Error(), op.String()) {
					t.Errorf("%s: error %q does not name the opcode", v.name, err)
				}
			}
		}
	}
}

// checkAllRefuse checks that every decoder (those of p's direction and the
// direction-free ones) refuses p with sentinel, naming `names` in the error.
func checkAllRefuse(t *testing.T, p []byte, sentinel error, names string) {
	t.Helper()
	var d Decoder
	decoders := map[string]func([]byte) (Message, error){
		"Decode": Decode, "Decoder.Decode": d.Decode,
	}
	if len(p) == 0 || !Op(p[0]).Outbound() {
		decoders["DecodeInbound"], decoders["Decoder.DecodeInbound"] = DecodeInbound, d.DecodeInbound
	}
	if len(p) == 0 || !Op(p[0]).Inbound() {
		decoders["DecodeOutbound"], decoders["Decoder.DecodeOutbound"] = DecodeOutbound, d.DecodeOutbound
	}
	for name, dec := range decoders {
		m, err := dec(p)
		if m != nil || !errors.Is(err, sentinel) {
			t.Errorf("%s(% x) = %v, %v; want nil, %v", name, p, m, err, sentinel)
			continue
		}
		if !strings.Contains(err.Error(), names) {
			t.Errorf("%s(% x): error %q does not name %q", name, p, err, names)
		}
	}
}

func TestDecode_ErrorText(t *testing.T) {
	tests := []struct {
		dec     func([]byte) (Message, error)
		payload []byte
		want    string
	}{
		{Decode, hx("01 | 0000000000000001"),
			"decode PlayerLogin (1): payload is 9 bytes, want 11: proto: wrong payload length"},
		{Decode, hx("07 | 00"),
			"decode PrivateMessage (7): payload is 2 bytes, want at least 18: proto: wrong payload length"},
		{Decode, hx("81 | 0000000000000005 | 0002"),
			"decode UpdateIgnoreList (129): payload is 11 bytes, want 27 for count 2: proto: wrong payload length"},
		{Decode, hx("14"), "decode: opcode 20: proto: unknown opcode"},
		{DecodeOutbound, hx("0f 01"), "decode outbound: LinkAuth (15) is not an outbound opcode: proto: unknown opcode"},
		{DecodeInbound, hx("80"), "decode inbound: UpdateFriendList (128) is not an inbound opcode: proto: unknown opcode"},
		{DecodeOutbound, hx("01"), "decode outbound: PlayerLogin (1) is not an outbound opcode: proto: unknown opcode"},
		{DecodeOutbound, hx("ff"), "decode outbound: opcode 255: proto: unknown opcode"},
		{DecodeInbound, nil, "decode inbound: proto: empty payload"},
		{Decode, nil, "decode: proto: empty payload"},
	}
	for _, tt := range tests {
		_, err := tt.dec(tt.payload)
		if err == nil || err.Error() != tt.want {
			t.Errorf("decode(% x) error = %v, want %q", tt.payload, err, tt.want)
		}
	}
}

// TestWorldInfo_LengthsPastThePayload: a license or instance length that
// runs past the payload is refused, not read beyond it.
func TestWorldInfo_LengthsPastThePayload(t *testing.T) {
	for _, p := range [][]byte{hx("11 | 05 | 6162"), hx("11 | 01 | 61"), hx("11 | 00 | 02 | 61")} {
		if _, err := DecodeInbound(p); !errors.Is(err, frame.ErrLength) {
			t.Errorf("% x: %v, want frame.ErrLength", p, err)
		}
	}
}

// An encode error names the message that did not fit.
func TestEncode_ErrorText(t *testing.T) {
	big := PlayerSaveRequest{User37: 1, SaveData: make([]byte, MaxPayload)}
	const want = "encode PlayerSaveRequest: payload is 65544 bytes, max 65535: proto: payload too large"
	if _, err := AppendFrame(nil, big); err == nil || err.Error() != want {
		t.Errorf("AppendFrame error = %v, want %q", err, want)
	}
	if err := WriteFrame(io.Discard, big); err == nil || err.Error() != want {
		t.Errorf("WriteFrame error = %v, want %q", err, want)
	}
}
