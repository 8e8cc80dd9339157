package frame

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

type raw []byte

func (r raw) AppendPayload(dst []byte) []byte { return append(dst, r...) }

// A frame written is the frame read; the cap holds both ways; a stream cut
// inside a frame is io.ErrUnexpectedEOF and one ending between frames io.EOF.
func TestFrame_RoundTripAndCaps(t *testing.T) {
	var w bytes.Buffer
	for _, p := range []raw{{1}, {2, 3, 4}, {}, bytes.Repeat([]byte{9}, 100)} {
		if err := Write(&w, p, 100); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(&w, raw(make([]byte, 101)), 100); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Write of 101 bytes with a cap of 100: %v", err)
	}
	r := bytes.NewReader(w.Bytes())
	for _, want := range [][]byte{{1}, {2, 3, 4}, {}, bytes.Repeat([]byte{9}, 100)} {
		got, err := Read(r, nil, 100)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Read = %v, %v; want %v", got, err, want)
		}
	}
	if _, err := Read(r, nil, 100); err != io.EOF {
		t.Fatalf("Read at the end = %v, want io.EOF", err)
	}
	if _, err := Read(bytes.NewReader([]byte{0, 101}), nil, 100); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read of a header over the cap = %v", err)
	}
	if _, err := Read(bytes.NewReader([]byte{0, 3, 1}), nil, 100); err != io.ErrUnexpectedEOF {
		t.Fatalf("Read of a cut frame = %v", err)
	}
	if _, err := Read(bytes.NewReader([]byte{0}), nil, 100); err != io.ErrUnexpectedEOF {
		t.Fatalf("Read of a cut header = %v", err)
	}
}

// FuzzRead: whatever the stream, Read returns payloads no longer than the
// cap, each re-encoding to the bytes it came from, until an error.
func FuzzRead(f *testing.F) {
	f.Add([]byte{0, 1, 7, 0, 0, 0, 2, 1, 2}, 4)
	f.Add([]byte{0, 200}, 100)
	f.Fuzz(func(t *testing.T, stream []byte, max int) {
		if max < 0 || max > MaxPayload {
			return
		}
		r := bytes.NewReader(stream)
		var out bytes.Buffer
		for {
			p, err := Read(r, nil, max)
			if err != nil {
				if !bytes.HasPrefix(stream, out.Bytes()) {
					t.Fatalf("re-encoded %x is not a prefix of %x", out.Bytes(), stream)
				}
				return
			}
			if len(p) > max {
				t.Fatalf("a %d-byte payload over the cap %d", len(p), max)
			}
			if err := Write(&out, raw(p), max); err != nil {
				t.Fatal(err)
			}
		}
	})
}
