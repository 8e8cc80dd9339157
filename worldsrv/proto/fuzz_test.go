package proto

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the seed corpora in testdata/fuzz from the vectors")

// decodeSentinels are the errors a payload may fail to decode with.
var decodeSentinels = []error{ErrEmpty, ErrUnknownOp, ErrLength, ErrBadString, ErrBadUTF8, ErrTextLength, ErrBadMode, ErrTooMany}

func wrapsSentinel(err error) bool {
	for _, s := range decodeSentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// FuzzDecode decodes p as a frame the world sent (world) or a client sent:
// never a panic; an error wraps a sentinel; the package-level decoder and
// a Decoder agree; a decoded message re-encodes to exactly p (the codec
// has one encoding per message) and frames and unframes to it.
func FuzzDecode(f *testing.F) {
	for _, v := range clientVectors {
		f.Add(false, v.payload)
	}
	for _, v := range worldVectors {
		f.Add(true, v.payload)
	}
	var d Decoder
	f.Fuzz(func(t *testing.T, world bool, p []byte) {
		var m, dm Message
		var err, derr error
		if world {
			m, err = unwrapWorld(DecodeWorld(p))
			dm, derr = unwrapWorld(d.DecodeWorld(p))
		} else {
			m, err = unwrapClient(DecodeClient(p))
			dm, derr = unwrapClient(d.DecodeClient(p))
		}
		if err != nil {
			if !wrapsSentinel(err) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			if derr == nil || derr.Error() != err.Error() || m != nil || dm != nil {
				t.Fatalf("decode = %v, %v but Decoder = %v, %v", m, err, dm, derr)
			}
			return
		}
		if derr != nil || !same(m, dm) {
			t.Fatalf("decode = %+v but Decoder = %+v, %v", m, dm, derr)
		}
		if got := m.AppendPayload(nil); !bytes.Equal(got, p) {
			t.Fatalf("re-encoded\n% x\nwant\n% x", got, p)
		}
		frame, err := AppendFrame(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		if fp, err := DecodeFrame(frame); err != nil || !bytes.Equal(fp, p) {
			t.Fatalf("frame round trip: % x, %v", fp, err)
		}
	})
}

// unwrapClient and unwrapWorld turn a typed nil into a nil Message.
func unwrapClient(m ClientMessage, err error) (Message, error) {
	if m == nil {
		return nil, err
	}
	return m, err
}

func unwrapWorld(m WorldMessage, err error) (Message, error) {
	if m == nil {
		return nil, err
	}
	return m, err
}

// FuzzReadFrame reads a stream of frames: each payload is the bytes its
// header promises, a header over MaxPayload stops the stream with
// ErrTooLarge, the stream ends in io.EOF exactly at a frame boundary and
// io.ErrUnexpectedEOF anywhere else, and any chunking reads the same.
func FuzzReadFrame(f *testing.F) {
	f.Add(smallStream())
	f.Add([]byte{})
	f.Add(hx("0000"))
	f.Add(hx("00"))
	f.Add(hx("1001 07"))
	f.Add(hx("1000 07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := splitFrames(data)
		for name, r := range map[string]io.Reader{
			"whole":    bytes.NewReader(data),
			"one byte": iotest.OneByteReader(bytes.NewReader(data)),
			"half":     iotest.HalfReader(bytes.NewReader(data)),
		} {
			var d Decoder
			buf := make([]byte, 0, 8)
			for i := 0; ; i++ {
				var err error
				buf, err = ReadFrame(r, buf)
				if err != nil {
					if i != len(want) || !errors.Is(err, wantErr) || len(buf) != 0 {
						t.Fatalf("%s: frame %d: %d bytes, %v; want %d frames then %v", name, i, len(buf), err, len(want), wantErr)
					}
					break
				}
				if i >= len(want) || !bytes.Equal(buf, want[i]) {
					t.Fatalf("%s: frame %d = % x, want %d frames", name, i, buf, len(want))
				}
				_, _ = d.DecodeClient(buf) // must not panic
				_, _ = d.DecodeWorld(buf)
			}
		}
	})
}

// smallStream is the framed vectors of up to 32 bytes: a seed small enough
// that minimizing inputs grown from it stays quick.
func smallStream() []byte {
	var s []byte
	for _, v := range append(append([]vector{}, clientVectors...), worldVectors...) {
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
		if n > MaxPayload {
			return frames, ErrTooLarge
		}
		if len(data) < 2+n {
			return frames, io.ErrUnexpectedEOF
		}
		frames = append(frames, data[2:2+n])
		data = data[2+n:]
	}
	return frames, io.EOF
}

// TestFuzzCorpus keeps the committed seed corpora in step with the vectors
// and malformed cases: each is an entry of testdata/fuzz/FuzzDecode, and
// the framed stream and a few broken ones entries of
// testdata/fuzz/FuzzReadFrame. Run with -update-corpus to rewrite them.
func TestFuzzCorpus(t *testing.T) {
	entries := map[string]string{}
	decodeEntry := func(prefix string, world bool, name string, p []byte) {
		entries[filepath.Join("FuzzDecode", prefix+"-"+name)] = fmt.Sprintf("bool(%v)\n[]byte(%q)\n", world, p)
	}
	for _, v := range clientVectors {
		decodeEntry("client", false, v.name, v.payload)
	}
	for _, v := range worldVectors {
		decodeEntry("world", true, v.name, v.payload)
	}
	for _, c := range clientMalformed {
		decodeEntry("client-bad", false, c.name, c.payload)
	}
	for _, c := range worldMalformed {
		decodeEntry("world-bad", true, c.name, c.payload)
	}
	for name, data := range map[string][]byte{
		"stream":      smallStream(),
		"zero-length": hx("0000 0001 09"),
		"truncated":   hx("0005 0a 0001"),
		"too-large":   hx("0001 09 1001 07"),
	} {
		entries[filepath.Join("FuzzReadFrame", name)] = fmt.Sprintf("[]byte(%q)\n", data)
	}
	for name, body := range entries {
		path := filepath.Join("testdata", "fuzz", name)
		want := "go test fuzz v1\n" + body
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
