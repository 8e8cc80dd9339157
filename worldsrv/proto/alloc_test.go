package proto

import (
	"bytes"
	"testing"
)

// A Decoder allocates nothing for any message of either direction once
// warm: fixed-size ones never, strings alias the payload, and IgnoreList
// and Nearby reuse the storage of their last, no smaller, list.
func TestDecoder_ZeroAllocs(t *testing.T) {
	var d Decoder
	check := func(name string, decode func() error) {
		if err := decode(); err != nil { // grow the list storage
			t.Fatalf("%s: %v", name, err)
		}
		n := testing.AllocsPerRun(100, func() {
			if err := decode(); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocs per decode, want 0", name, n)
		}
	}
	for _, v := range clientVectors {
		check(v.name, func() error { _, err := d.DecodeClient(v.payload); return err })
	}
	for _, v := range worldVectors {
		check(v.name, func() error { _, err := d.DecodeWorld(v.payload); return err })
	}
}

func TestAppendFrame_ZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, MaxFrame)
	for _, v := range append(append([]vector{}, clientVectors...), worldVectors...) {
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
	buf := make([]byte, 0, MaxPayload)
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

func TestName37_ZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, MaxNameLen)
	n := testing.AllocsPerRun(100, func() {
		v, err := EncodeName("iron_man")
		if err != nil || !ValidName37(v) {
			t.Fatal(v, err)
		}
		buf = AppendName(buf[:0], v)
	})
	if n != 0 {
		t.Errorf("%v allocs per EncodeName+ValidName37+AppendName, want 0", n)
	}
}
