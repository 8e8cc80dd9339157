package rcon

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/corrosion/corrosion/internal/webrcon"
)

// FuzzReadPacket feeds arbitrary bytes to the Source RCON packet reader:
// it must never panic, never return a body over its cap, and fail only
// with the errors it documents. A packet it encodes itself reads back.
func FuzzReadPacket(f *testing.F) {
	var seed bytes.Buffer
	appendPacket(&seed, typeResponseValue, 7, "hello")
	appendPacket(&seed, typeAuthResponse, -1, "")
	f.Add(seed.Bytes(), int32(3), int32(2), "status")
	f.Add([]byte{9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}, int32(0), int32(0), "")
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f}, int32(1), int32(0), "x\x00y")
	f.Add([]byte{10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0}, int32(-1), int32(3), "pw")
	const maxBody = 4096
	f.Fuzz(func(t *testing.T, data []byte, id, typ int32, body string) {
		pr := newPacketReader(bytes.NewReader(data), maxBody)
		for {
			p, err := pr.next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) &&
					!errors.Is(err, ErrProtocol) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				break
			}
			if len(p.body) > maxBody {
				t.Fatalf("body of %d bytes over the %d cap", len(p.body), maxBody)
			}
		}
		if len(body) > maxBody {
			return
		}
		var buf bytes.Buffer
		appendPacket(&buf, typ, id, body)
		p, err := newPacketReader(&buf, maxBody).next()
		if err != nil || p.id != id || p.typ != typ || string(p.body) != body {
			t.Fatalf("round trip of (%d, %d, %q) = (%d, %d, %q), %v", id, typ, body, p.id, p.typ, p.body, err)
		}
	})
}

// FuzzDecodeFrame feeds arbitrary bytes to the WebRCON frame decoder: it
// must never panic, fail only with ErrProtocol, and a frame it accepts must
// survive a re-encode; the reply test must agree with its definition.
func FuzzDecodeFrame(f *testing.F) {
	f.Add([]byte(`{"Message":"hello","Identifier":1001,"Type":"Generic","Stacktrace":""}`), int32(1001))
	f.Add([]byte(`{"Message":"[rcon] 127.0.0.1:5: status","Identifier":1001,"Type":"Generic"}`), int32(1001))
	f.Add([]byte(`{"Message":"{\"Message\":\"hi\"}","Identifier":-1,"Type":"Chat"}`), int32(1002))
	f.Add([]byte(`{"Identifier":99999999999}`), int32(0))
	f.Add([]byte(`[1,2,3]`), int32(5))
	f.Add([]byte(`{"Message":"\ud800"}`), int32(5))
	f.Fuzz(func(t *testing.T, data []byte, id int32) {
		fr, err := decodeFrame(data)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		again, err := json.Marshal(fr)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		fr2, err := decodeFrame(again)
		if err != nil || fr2 != fr {
			t.Fatalf("re-decode: %+v, %v; want %+v", fr2, err, fr)
		}
		want := fr.Identifier == int64(id) && !bytes.HasPrefix([]byte(fr.Message), []byte(webrcon.EchoPrefix))
		if fr.IsReplyTo(int64(id)) != want {
			t.Fatalf("IsReplyTo(%d) = %v for %+v", id, !want, fr)
		}
		// Dispatch: only a reply to a waiting identifier above 1000 is taken.
		ch := make(chan webResult, 1)
		w := &webConn{pending: map[int32]chan webResult{id: ch}}
		if got := w.deliver(fr); got != (want && id > firstIdentifier) {
			t.Fatalf("deliver(%+v) with %d waiting = %v", fr, id, got)
		}
	})
}
