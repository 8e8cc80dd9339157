package proto

import (
	"bytes"
	"io"
	"testing"
)

// A Decoder allocates nothing for any message once warm: fixed-size ones
// never, variable-size ones alias the payload, and UpdateIgnoreList reuses
// the storage of its last, no smaller, list.
func TestDecoder_ZeroAllocs(t *testing.T) {
	var d Decoder
	for _, v := range vectors {
		decode := d.DecodeInbound
		if v.msg.Op().Outbound() {
			decode = d.DecodeOutbound
		}
		if _, err := decode(v.payload); err != nil { // grow UpdateIgnoreList's storage
			t.Fatalf("%s: %v", v.name, err)
		}
		n := testing.AllocsPerRun(100, func() {
			if _, err := decode(v.payload); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocs per decode, want 0", v.name, n)
		}
	}
}

func TestAppendFrame_ZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, 2+MaxPayload)
	for _, v := range vectors {
		m := v.msg // already an interface value: nothing to box per call
		n := testing.AllocsPerRun(100, func() {
			var err error
			if buf, err = AppendFrame(buf[:0], m); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocs per AppendFrame, want 0", v.name, n)
		}
	}
}

func TestReadFrame_ZeroAllocs(t *testing.T) {
	s, payloads := stream()
	r := bytes.NewReader(s)
	buf := make([]byte, 0, 2+MaxPayload)
	n := testing.AllocsPerRun(10, func() {
		r.Reset(s)
		for range payloads {
			var err error
			if buf, err = ReadFrame(r, buf); err != nil {
				t.Fatal(err)
			}
		}
	})
	if n != 0 {
		t.Errorf("%v allocs per stream of %d frames, want 0", n, len(payloads))
	}
}

func TestWriteFrame_ZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	m := Message(PlayerLogin{User37: 1, PID: 2})
	n := testing.AllocsPerRun(100, func() {
		if err := WriteFrame(io.Discard, m); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("%v allocs per WriteFrame, want 0", n)
	}
}
