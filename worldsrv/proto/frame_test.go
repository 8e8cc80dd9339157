package proto

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// stream is every vector framed, one after another, and the payloads.
func stream() ([]byte, [][]byte) {
	var s []byte
	var payloads [][]byte
	for _, v := range append(append([]vector{}, clientVectors...), worldVectors...) {
		var err error
		if s, err = AppendFrame(s, v.msg); err != nil {
			panic(err)
		}
		payloads = append(payloads, v.payload)
	}
	return s, payloads
}

func TestReadFrame_Stream(t *testing.T) {
	s, payloads := stream()
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(s),
		"one byte": iotest.OneByteReader(bytes.NewReader(s)),
		"half":     iotest.HalfReader(bytes.NewReader(s)),
	} {
		t.Run(name, func(t *testing.T) {
			var buf []byte
			for i, want := range payloads {
				var err error
				if buf, err = ReadFrame(r, buf); err != nil || !bytes.Equal(buf, want) {
					t.Fatalf("frame %d = % x, %v; want % x", i, buf, err, want)
				}
			}
			if p, err := ReadFrame(r, buf); err != io.EOF || len(p) != 0 {
				t.Fatalf("after the last frame: % x, %v; want io.EOF", p, err)
			}
		})
	}
}

func TestReadFrame_Errors(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty stream", nil, io.EOF},
		{"half a header", hx("00"), io.ErrUnexpectedEOF},
		{"truncated payload", hx("0005 0a0001"), io.ErrUnexpectedEOF},
		{"header only", hx("0005"), io.ErrUnexpectedEOF},
		{"4097 bytes", hx("1001"), ErrTooLarge},
		{"4097 bytes with payload", cat(hx("1001"), make([]byte, 4097)), ErrTooLarge},
		{"65535 bytes", hx("ffff"), ErrTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			buf := make([]byte, 0, 16)
			p, err := ReadFrame(bytes.NewReader(c.data), buf)
			if !errors.Is(err, c.want) || len(p) != 0 {
				t.Fatalf("ReadFrame = % x, %v; want %v", p, err, c.want)
			}
		})
	}
}

// An oversized header is refused before its payload is read, so the
// reader is left right after the header.
func TestReadFrame_TooLargeReadsOnlyTheHeader(t *testing.T) {
	r := bytes.NewReader(cat(hx("1001"), make([]byte, 10)))
	if _, err := ReadFrame(r, nil); !errors.Is(err, ErrTooLarge) {
		t.Fatal(err)
	}
	if r.Len() != 10 {
		t.Errorf("%d bytes left unread, want 10", r.Len())
	}
}

func TestReadFrame_MaxPayloadAndZeroLength(t *testing.T) {
	max := cat(hx("1000 07"), bytes.Repeat([]byte("x"), MaxPayload-1))
	r := bytes.NewReader(cat(max, hx("0000")))
	p, err := ReadFrame(r, nil)
	if err != nil || len(p) != MaxPayload {
		t.Fatalf("a %d-byte frame: %d bytes, %v", MaxPayload, len(p), err)
	}
	m, err := DecodeWorld(p)
	if err != nil || len(m.(*SystemMessage).Text) != MaxPayload-1 {
		t.Fatalf("the largest SystemMessage: %v", err)
	}
	p, err = ReadFrame(r, p)
	if err != nil || len(p) != 0 {
		t.Fatalf("a zero-length frame: % x, %v", p, err)
	}
	if _, err := DecodeClient(p); !errors.Is(err, ErrEmpty) {
		t.Errorf("decoding a zero-length frame: %v", err)
	}
}

func TestDecodeFrame(t *testing.T) {
	for _, c := range []struct {
		name string
		msg  []byte
		want []byte
		err  error
	}{
		{"walk", hx("0005 0a00010002"), hx("0a00010002"), nil},
		{"zero length", hx("0000"), []byte{}, nil},
		{"empty message", nil, nil, ErrBadFrame},
		{"one byte", hx("00"), nil, ErrBadFrame},
		{"short", hx("0005 0a0001"), nil, ErrBadFrame},
		{"two frames", hx("0001 09 0001 09"), nil, ErrBadFrame},
		{"trailing byte", hx("0001 09 00"), nil, ErrBadFrame},
		{"too large", cat(hx("1001"), make([]byte, 4097)), nil, ErrTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := DecodeFrame(c.msg)
			if !errors.Is(err, c.err) || !bytes.Equal(p, c.want) || (err != nil && p != nil) {
				t.Fatalf("DecodeFrame = % x, %v; want % x, %v", p, err, c.want, c.err)
			}
		})
	}
}

func TestAppendFrame_TooLarge(t *testing.T) {
	dst := []byte("keep")
	for name, m := range map[string]Message{
		"SystemMessage 4096 bytes of text": SystemMessage{Text: strings.Repeat("x", MaxPayload)},
		"IgnoreList of 512":                IgnoreList{Names37: make([]uint64, 512)},
	} {
		got, err := AppendFrame(dst, m)
		if !errors.Is(err, ErrTooLarge) || string(got) != "keep" {
			t.Errorf("%s: %q, %v; want dst unchanged and ErrTooLarge", name, got, err)
		}
	}
	// The largest that fit.
	for name, m := range map[string]Message{
		"SystemMessage 4095 bytes of text": SystemMessage{Text: strings.Repeat("x", MaxPayload-1)},
		"IgnoreList of 511":                IgnoreList{Names37: make([]uint64, 511)},
		"Nearby of 255":                    Nearby{Players: nearbyPlayers(MaxNearby)},
	} {
		f, err := AppendFrame(nil, m)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, err := DecodeFrame(f); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// writeCounter counts Write calls.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) { w.writes++; return w.Buffer.Write(p) }

func TestWriteFrame_OneWritePerFrame(t *testing.T) {
	var w writeCounter
	for _, v := range worldVectors {
		if err := WriteFrame(&w, v.msg); err != nil {
			t.Fatal(err)
		}
	}
	if w.writes != len(worldVectors) {
		t.Errorf("%d writes for %d frames", w.writes, len(worldVectors))
	}
	for _, v := range worldVectors {
		p, err := ReadFrame(&w.Buffer, nil)
		if err != nil || !bytes.Equal(p, v.payload) {
			t.Fatalf("%s: read back % x, %v", v.name, p, err)
		}
	}
	if err := WriteFrame(&w, SystemMessage{Text: strings.Repeat("x", MaxPayload)}); !errors.Is(err, ErrTooLarge) || w.writes != len(worldVectors) {
		t.Errorf("an oversized frame: %v after %d writes", err, w.writes)
	}
}
