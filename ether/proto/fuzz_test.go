package proto

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/corrosion/corrosion/internal/frame"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the seed corpora in testdata/fuzz from the vectors")

// canonicalPayload is the payload a decoded message re-encodes to: the same
// bytes, except that a bool byte (PlayerSaveAck, LoginCheckResponse) reads
// any non-zero value as true and writes true as 1.
func canonicalPayload(p []byte) []byte {
	switch Op(p[0]) {
	case OpPlayerSaveAck, OpLoginCheckResponse:
		c := bytes.Clone(p)
		c[9] = boolByte(c[9] != 0)
		return c
	}
	return p
}

func FuzzDecode(f *testing.F) {
	for _, v := range vectors {
		f.Add(v.payload)
	}
	var d Decoder
	f.Fuzz(func(t *testing.T, p []byte) {
		m, err := Decode(p)
		dm, derr := d.Decode(p)
		if err != nil {
			if !errors.Is(err, frame.ErrEmpty) && !errors.Is(err, frame.ErrUnknownOp) && !errors.Is(err, frame.ErrLength) {
				t.Fatalf("Decode error %v wraps no sentinel", err)
			}
			if derr == nil || derr.Error() != err.Error() || m != nil || dm != nil {
				t.Fatalf("Decode = %v, %v but Decoder.Decode = %v, %v", m, err, dm, derr)
			}
			return
		}
		if derr != nil || !sameMessage(m, dm) {
			t.Fatalf("Decode = %#v but Decoder.Decode = %#v, %v", m, dm, derr)
		}
		op := Op(p[0])
		if m.Op() != op {
			t.Fatalf("decoded %T from opcode %v", m, op)
		}
		if got, want := m.AppendPayload(nil), canonicalPayload(p); !bytes.Equal(got, want) {
			t.Fatalf("re-encoded\n% x\nwant\n% x", got, want)
		}
		_, ierr := DecodeInbound(p)
		_, oerr := DecodeOutbound(p)
		if (ierr == nil) != op.Inbound() || (oerr == nil) != op.Outbound() {
			t.Fatalf("opcode %v: DecodeInbound %v, DecodeOutbound %v", op, ierr, oerr)
		}
		if cm, cerr := DecodeOutboundCopy(p); (cerr == nil) != op.Outbound() || (cerr == nil && !sameMessage(m, ptrTo(cm))) {
			t.Fatalf("opcode %v: DecodeOutboundCopy = %#v, %v; Decode = %#v", op, cm, cerr, m)
		}
		fr, err := AppendFrame(nil, m)
		if len(p) > MaxPayload {
			if !errors.Is(err, frame.ErrTooLarge) {
				t.Fatalf("%d-byte payload framed: %v", len(p), err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if rp, err := ReadFrame(bytes.NewReader(fr), nil); err != nil || !bytes.Equal(rp, canonicalPayload(p)) {
			t.Fatalf("frame round trip: % x, %v", rp, err)
		}
	})
}

// FuzzReadFrame reads a stream of frames: each payload is the bytes its
// header promises, the stream ends in io.EOF exactly at a frame boundary
// and io.ErrUnexpectedEOF anywhere else, and any chunking reads the same.
func FuzzReadFrame(f *testing.F) {
	f.Add(smallStream())
	f.Add([]byte{})
	f.Add(hx("0000"))
	f.Add(hx("00"))
	f.Add(hx("ffff 07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := splitFrames(data)
		for name, r := range map[string]io.Reader{
			"whole":    bytes.NewReader(data),
			"one byte": iotest.OneByteReader(bytes.NewReader(data)),
			"half":     iotest.HalfReader(bytes.NewReader(data)),
		} {
			buf := make([]byte, 0, 8)
			for i := 0; ; i++ {
				var err error
				buf, err = ReadFrame(r, buf)
				if err != nil {
					if i != len(want) || err != wantErr || len(buf) != 0 {
						t.Fatalf("%s: frame %d: %d bytes, %v; want %d frames then %v", name, i, len(buf), err, len(want), wantErr)
					}
					break
				}
				if i >= len(want) || !bytes.Equal(buf, want[i]) {
					t.Fatalf("%s: frame %d = % x, want %d frames", name, i, buf, len(want))
				}
				_, _ = Decode(buf) // must not panic
			}
		}
	})
}

// smallStream is the framed vectors of up to 32 bytes: a seed small enough
// that minimizing inputs grown from it stays quick.
func smallStream() []byte {
	var s []byte
	for _, v := range vectors {
		if len(v.payload) <= 32 {
			s = append(s, byte(len(v.payload)>>8), byte(len(v.payload)))
			s = append(s, v.payload...)
		}
	}
	return s
}

// splitFrames splits data into frame payloads by hand, and says how the
// stream ends.
func splitFrames(data []byte) ([][]byte, error) {
	var frames [][]byte
	for len(data) > 0 {
		if len(data) < 2 {
			return frames, io.ErrUnexpectedEOF
		}
		n := int(data[0])<<8 | int(data[1])
		if len(data) < 2+n {
			return frames, io.ErrUnexpectedEOF
		}
		frames = append(frames, data[2:2+n])
		data = data[2+n:]
	}
	return frames, io.EOF
}

// TestFuzzCorpus keeps the committed seed corpora in step with the vectors:
// every vector is an entry of testdata/fuzz/FuzzDecode and the framed
// stream one of testdata/fuzz/FuzzReadFrame. Run with -update-corpus to
// rewrite them.
func TestFuzzCorpus(t *testing.T) {
	entries := map[string][]byte{}
	for _, v := range vectors {
		entries[filepath.Join("FuzzDecode", corpusName(v.name))] = v.payload
	}
	for _, p := range [][]byte{hx("12"), hx("81 | 0000000000000005 | 0002"), hx("07 00"), hx("01 | 0000000000000001")} {
		entries[filepath.Join("FuzzDecode", fmt.Sprintf("invalid-%x", p))] = p
	}
	entries[filepath.Join("FuzzReadFrame", "stream")] = smallStream()
	entries[filepath.Join("FuzzReadFrame", "zero-length")] = hx("0000 0001 0e")
	entries[filepath.Join("FuzzReadFrame", "truncated")] = hx("000b 01 0123")

	for name, data := range entries {
		path := filepath.Join("testdata", "fuzz", name)
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if *updateCorpus {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is missing or stale (%v): run go test -run TestFuzzCorpus -update-corpus", path, err)
		}
	}
}

func corpusName(name string) string { return strings.ReplaceAll(name, "/", "-") }
