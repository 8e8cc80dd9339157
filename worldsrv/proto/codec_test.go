package proto

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/frame"
)

// same reports whether two messages hold the same values (a nil and an
// empty slice are the same list).
func same(a, b any) bool {
	return reflect.TypeOf(a) == reflect.TypeOf(b) && fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b)
}

// ptrTo returns a pointer to a copy of the message m holds, as the
// decoders return it.
func ptrTo(m Message) any {
	v := reflect.New(reflect.TypeOf(m))
	v.Elem().Set(reflect.ValueOf(m))
	return v.Interface()
}

func TestClientVectors_EncodeAndDecode(t *testing.T) {
	var d Decoder
	for _, v := range clientVectors {
		t.Run(v.name, func(t *testing.T) {
			m := v.msg.(ClientMessage)
			if got := m.AppendPayload(nil); !bytes.Equal(got, v.payload) {
				t.Fatalf("encoded\n% x\nwant\n% x", got, v.payload)
			}
			if ClientOp(v.payload[0]) != m.Op() {
				t.Fatalf("payload opcode %d, message %v", v.payload[0], m.Op())
			}
			got, err := DecodeClient(v.payload)
			if err != nil || !same(got, ptrTo(m)) {
				t.Fatalf("DecodeClient = %+v, %v; want %+v", got, err, m)
			}
			got, err = d.DecodeClient(v.payload)
			if err != nil || !same(got, ptrTo(m)) {
				t.Fatalf("Decoder.DecodeClient = %+v, %v; want %+v", got, err, m)
			}
			if _, err := DecodeWorld(v.payload); err == nil && !WorldOp(v.payload[0]).Defined() {
				t.Fatalf("DecodeWorld decoded an undefined world opcode")
			}
		})
	}
}

func TestWorldVectors_EncodeAndDecode(t *testing.T) {
	var d Decoder
	for _, v := range worldVectors {
		t.Run(v.name, func(t *testing.T) {
			m := v.msg.(WorldMessage)
			if got := m.AppendPayload(nil); !bytes.Equal(got, v.payload) {
				t.Fatalf("encoded\n% x\nwant\n% x", got, v.payload)
			}
			if WorldOp(v.payload[0]) != m.Op() {
				t.Fatalf("payload opcode %d, message %v", v.payload[0], m.Op())
			}
			got, err := DecodeWorld(v.payload)
			if err != nil || !same(got, ptrTo(m)) {
				t.Fatalf("DecodeWorld = %+v, %v; want %+v", got, err, m)
			}
			got, err = d.DecodeWorld(v.payload)
			if err != nil || !same(got, ptrTo(m)) {
				t.Fatalf("Decoder.DecodeWorld = %+v, %v; want %+v", got, err, m)
			}
		})
	}
}

// Every message survives a whole frame: AppendFrame, then ReadFrame from a
// stream and DecodeFrame from one WebSocket message, then decoding.
func TestVectors_FrameRoundTrip(t *testing.T) {
	for _, v := range append(append([]vector{}, clientVectors...), worldVectors...) {
		frame, err := AppendFrame(nil, v.msg)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if want := cat([]byte{byte(len(v.payload) >> 8), byte(len(v.payload))}, v.payload); !bytes.Equal(frame, want) {
			t.Fatalf("%s: frame\n% x\nwant\n% x", v.name, frame, want)
		}
		rp, err := ReadFrame(bytes.NewReader(frame), nil)
		if err != nil || !bytes.Equal(rp, v.payload) {
			t.Fatalf("%s: ReadFrame = % x, %v", v.name, rp, err)
		}
		dp, err := DecodeFrame(frame)
		if err != nil || !bytes.Equal(dp, v.payload) {
			t.Fatalf("%s: DecodeFrame = % x, %v", v.name, dp, err)
		}
	}
}

// A Decoder's strings alias the payload (no copy), and the package-level
// decoders' strings do not.
func TestDecoder_StringsAliasPayload(t *testing.T) {
	p := hx("07 | 03 626f62 | 6869")
	var d Decoder
	m, err := d.DecodeClient(p)
	if err != nil {
		t.Fatal(err)
	}
	owned, err := DecodeClient(p)
	if err != nil {
		t.Fatal(err)
	}
	copy(p[2:], "BOB")
	if got := m.(*PrivateMessage).Name; got != "BOB" {
		t.Errorf("Decoder's name = %q after the payload changed, want it to alias (BOB)", got)
	}
	if got := owned.(*PrivateMessage).Name; got != "bob" {
		t.Errorf("DecodeClient's name = %q after the payload changed, want its own copy (bob)", got)
	}
}

// A failed decode leaves the Decoder's message as the last success left it.
func TestDecoder_ErrorKeepsLastMessage(t *testing.T) {
	var d Decoder
	if _, err := d.DecodeClient(hx("08 000102")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.DecodeClient(hx("08 020203")); !errors.Is(err, ErrBadMode) {
		t.Fatalf("bad trade mode: %v", err)
	}
	if d.c.chatSettings != (ChatSettings{ChatOn, ChatFriends, ChatOff}) {
		t.Errorf("after a failed decode the storage holds %+v", d.c.chatSettings)
	}
}

type malformed struct {
	name    string
	payload []byte
	want    error
}

// Hand-written malformed payloads, each with the error it must give.
var clientMalformed = []malformed{
	{"empty", nil, ErrEmpty},
	{"opcode-0", hx("00"), ErrUnknownOp},
	{"opcode-11", hx("0b 0000"), ErrUnknownOp},
	{"opcode-255", hx("ff"), ErrUnknownOp},
	{"Login-username-past-end", hx("01 05 6162"), ErrBadString},
	{"Login-password-past-end", hx("01 01 61 03 61"), ErrBadString},
	{"Login-password-missing", hx("01 02 6162"), ErrBadString},
	{"Login-trailing-byte", hx("01 01 61 01 62 ff"), ErrLength},
	{"Login-username-not-utf8", hx("01 01 ff 00"), ErrBadUTF8},
	{"Login-password-not-utf8", hx("01 00 02 c328"), ErrBadUTF8},
	{"Login-too-long", cat(hx("01 ff"), []byte(name255), hx("ff"), []byte(name255), hx("00")), ErrLength},
	{"FriendAdd-past-end", hx("03 05 616263"), ErrBadString},
	{"FriendAdd-trailing-byte", hx("03 01 61 62"), ErrLength},
	{"FriendDel-not-utf8", hx("04 02 e29c"), ErrBadUTF8},
	{"IgnoreAdd-no-str8", hx("05"), ErrLength},
	{"IgnoreDel-past-end", hx("06 ff"), ErrBadString},
	{"PrivateMessage-name-past-end", hx("07 09 6162"), ErrBadString},
	{"PrivateMessage-no-text", hx("07 03 626f62"), ErrTextLength},
	{"PrivateMessage-no-name-no-text", hx("07 00"), ErrLength},
	{"PrivateMessage-81", cat(hx("07 03 626f62"), []byte(text80), []byte("!")), ErrTextLength},
	{"PrivateMessage-text-not-utf8", hx("07 00 68c3"), ErrBadUTF8},
	{"PrivateMessage-too-long", cat(hx("07 ff"), []byte(name255), []byte(text80), []byte("!")), ErrLength},
	{"ChatSettings-public-3", hx("08 030000"), ErrBadMode},
	{"ChatSettings-private-255", hx("08 00ff00"), ErrBadMode},
	{"ChatSettings-trade-3", hx("08 000003"), ErrBadMode},
	{"Walk-short", hx("0a 0102 03"), ErrLength},
}

var worldMalformed = []malformed{
	{"empty", nil, ErrEmpty},
	{"opcode-0", hx("00"), ErrUnknownOp},
	{"opcode-12", hx("0c"), ErrUnknownOp},
	{"LoginResponse-ok-without-pid", hx("01 02"), ErrLength},
	{"LoginResponse-ok-without-node", hx("01 02 0001"), ErrLength},
	{"LoginResponse-failure-with-pid", hx("01 03 0001 0a"), ErrLength},
	{"LoginResponse-failure-trailing", hx("01 07 00"), ErrLength},
	{"IgnoreList-count-over", hx("03 0002 0000000000000001"), ErrLength},
	{"IgnoreList-count-under", hx("03 0000 0000000000000001"), ErrLength},
	{"IgnoreList-partial-entry", hx("03 0001 00000000000001"), ErrLength},
	{"PrivateMessageIn-text-not-utf8", hx("04 0000000000000001 00000001 00 ff"), ErrBadUTF8},
	{"ChatSettingsNow-bad-mode", hx("06 000300"), ErrBadMode},
	{"SystemMessage-not-utf8", hx("07 6f6b c0af"), ErrBadUTF8},
	{"Nearby-count-over", cat(hx("0b 0003"), nearby2Bytes), ErrLength},
	{"Nearby-count-under", cat(hx("0b 0001"), nearby2Bytes), ErrLength},
	{"Nearby-256", hx("0b 0100"), ErrTooMany},
	{"Nearby-too-long", cat(nearbyPayload(MaxNearby), nearby2Bytes[:14]), ErrLength},
}

func TestDecodeClient_Malformed(t *testing.T) {
	var d Decoder
	for _, c := range clientMalformed {
		t.Run(c.name, func(t *testing.T) {
			checkMalformed(t, c, func(p []byte) (any, error) { return DecodeClient(p) })
			checkMalformed(t, c, func(p []byte) (any, error) { return d.DecodeClient(p) })
		})
	}
}

func TestDecodeWorld_Malformed(t *testing.T) {
	var d Decoder
	for _, c := range worldMalformed {
		t.Run(c.name, func(t *testing.T) {
			checkMalformed(t, c, func(p []byte) (any, error) { return DecodeWorld(p) })
			checkMalformed(t, c, func(p []byte) (any, error) { return d.DecodeWorld(p) })
		})
	}
}

func checkMalformed(t *testing.T, c malformed, decode func([]byte) (any, error)) {
	t.Helper()
	m, err := decode(c.payload)
	if !errors.Is(err, c.want) {
		t.Fatalf("decode % x = %+v, %v; want %v", c.payload, m, err, c.want)
	}
	if m != nil {
		t.Errorf("decode returned %+v with its error", m)
	}
	if !strings.HasPrefix(err.Error(), "decode ") {
		t.Errorf("error %q does not say what failed", err)
	}
}

// Every defined opcode, both directions, refuses a payload one byte
// shorter than its shortest and one byte longer than its longest, and
// every undefined opcode refuses everything.
func TestDecode_EveryOpcodeWrongLength(t *testing.T) {
	var d Decoder
	for i := range 256 {
		for _, dir := range []struct {
			name   string
			size   frame.Size
			decode func([]byte) error
		}{
			{"client", clientOps[i].Size, func(p []byte) error { _, err := d.DecodeClient(p); return err }},
			{"world", worldOps[i].Size, func(p []byte) error { _, err := d.DecodeWorld(p); return err }},
		} {
			if dir.size == (frame.Size{}) {
				if err := dir.decode([]byte{byte(i), 0}); !errors.Is(err, ErrUnknownOp) {
					t.Errorf("%s opcode %d (undefined): %v", dir.name, i, err)
				}
				continue
			}
			for _, n := range []int{dir.size.Min - 1, dir.size.Max + 1} {
				if n < 1 {
					continue
				}
				p := make([]byte, n)
				p[0] = byte(i)
				if err := dir.decode(p); !errors.Is(err, ErrLength) {
					t.Errorf("%s opcode %d, %d bytes: %v, want ErrLength", dir.name, i, n, err)
				}
			}
		}
	}
}

// The texts of the errors a peer's bad frame or an oversized message
// makes, which an operator reads in the world's log: each names the
// direction, the message and the rule it broke.
func TestErrors_Texts(t *testing.T) {
	_, appendErr := AppendFrame(nil, SystemMessage{Text: strings.Repeat("x", MaxPayload)})
	writeErr := WriteFrame(&bytes.Buffer{}, SystemMessage{Text: strings.Repeat("x", MaxPayload)})
	_, readErr := ReadFrame(bytes.NewReader(hx("1001")), nil)
	_, wsErr := DecodeFrame(hx("1001"))
	for _, c := range []struct {
		err  error
		want string
	}{
		{errOf(DecodeClient(cat(hx("07 03 626f62"), []byte(text80), []byte("!")))),
			"decode client PrivateMessage (7): text is 81 bytes, want 1–80: proto: text length out of range"},
		{errOf(DecodeWorld(hx("0a 0001"))),
			"decode world Position (10): payload is 3 bytes, want 5: proto: wrong payload length"},
		{errOf(DecodeClient(hx("01 00"))),
			"decode client Login (1): payload is 2 bytes, want 3–513: proto: wrong payload length"},
		{errOf(DecodeWorld(hx("03 0002 0000000000000001"))),
			"decode world IgnoreList (3): payload is 11 bytes, want 19 for count 2: proto: wrong payload length"},
		{errOf(DecodeClient(nil)), "decode client: proto: empty payload"},
		{errOf(DecodeWorld(hx("ff"))), "decode world: opcode 255: proto: unknown opcode"},
		{appendErr, "encode proto.SystemMessage: payload is 4097 bytes, max 4096: proto: payload too large"},
		{writeErr, "encode proto.SystemMessage: payload is 4097 bytes, max 4096: proto: payload too large"},
		{readErr, "read frame: header says 4097 bytes, max 4096: proto: payload too large"},
		{wsErr, "read frame: header says 4097 bytes, max 4096: proto: payload too large"},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("error %q\nwant  %q", c.err, c.want)
		}
	}
}

func errOf[M any](_ M, err error) error { return err }

// An over-long str8 is cut to a whole UTF-8 character, so what the encoder
// writes always decodes.
func TestAppendStr8_CutsAtCharacter(t *testing.T) {
	long := strings.Repeat("a", MaxStr8-1) + "é" // 256 bytes; the é straddles the limit
	p := FriendAdd{Name: long}.AppendPayload(nil)
	m, err := DecodeClient(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*FriendAdd).Name; got != long[:MaxStr8-1] {
		t.Errorf("name cut to %d bytes, want %d", len(got), MaxStr8-1)
	}
}

// Nearby writes at most MaxNearby players: the first ones, the nearest.
func TestNearby_AppendCapsAt255(t *testing.T) {
	p := Nearby{Players: nearbyPlayers(MaxNearby + 10)}.AppendPayload(nil)
	if !bytes.Equal(p, nearbyPayload(MaxNearby)) {
		t.Fatalf("%d players encoded as %d bytes, want the first %d", MaxNearby+10, len(p), MaxNearby)
	}
}
