package proto

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/corrosion/corrosion/internal/frame"
)

func TestAppendFrame_Literal(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want []byte
	}{
		{"WorldRegister", WorldRegister{NodeID: 10}, hx("0002 | 00 | 0a")},
		{"PlayerLogin", &PlayerLogin{User37: 0x0123456789abcdef, PID: 0x0102},
			hx("000b | 01 | 0123456789abcdef | 0102")},
		{"RefreshAll", RefreshAll{}, hx("0001 | 0e")},
		{"UpdateIgnoreList/0", UpdateIgnoreList{Target37: 5}, hx("000b | 81 | 0000000000000005 | 0000")},
		{"LoginCheckResponse", LoginCheckResponse{User37: u64max, Allowed: true},
			hx("000a | 86 | ffffffffffffffff | 01")},
		{"PrivateMessage/5000", PrivateMessage{Sender37: 1, Target37: 2, Level: 3, Body: body5000},
			cat(hx("139a | 07 | 0000000000000001 | 0000000000000002 | 03"), body5000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendFrame(nil, tt.msg)
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Errorf("AppendFrame = % x, %v\nwant % x", got, err, tt.want)
			}
			got, err = AppendFrame([]byte("ab"), tt.msg)
			if err != nil || !bytes.Equal(got, cat([]byte("ab"), tt.want)) {
				t.Errorf("AppendFrame after a prefix = % x, %v", got, err)
			}
		})
	}
}

func TestAppendFrame_Vectors(t *testing.T) {
	for _, v := range vectors {
		if v.decodeOnly {
			continue
		}
		got, err := AppendFrame(nil, v.msg)
		want := cat([]byte{byte(len(v.payload) >> 8), byte(len(v.payload))}, v.payload)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: AppendFrame = % x, %v", v.name, got, err)
		}
	}
}

func TestAppendFrame_Limits(t *testing.T) {
	tests := []struct {
		name    string
		msg     Message
		wantLen int // payload length; 0 = refused
	}{
		{"PrivateMessage/65535", PrivateMessage{Body: make([]byte, MaxPayload-18)}, 65535},
		{"PrivateMessage/65536", PrivateMessage{Body: make([]byte, MaxPayload-18+1)}, 0},
		{"PlayerSaveRequest/65535", PlayerSaveRequest{SaveData: make([]byte, MaxPayload-9)}, 65535},
		{"PlayerSaveRequest/1MiB", PlayerSaveRequest{SaveData: make([]byte, 1<<20)}, 0},
		{"MessagePrivate/65536", MessagePrivate{Body: make([]byte, MaxPayload-22+1)}, 0},
		{"PlayerLoadResponse/65536", PlayerLoadResponse{SaveData: make([]byte, MaxPayload-9+1)}, 0},
		{"UpdateIgnoreList/8190", UpdateIgnoreList{Ignores: make([]uint64, 8190)}, 11 + 8*8190},
		{"UpdateIgnoreList/8191", UpdateIgnoreList{Ignores: make([]uint64, 8191)}, 0},
		{"UpdateIgnoreList/65536", UpdateIgnoreList{Ignores: make([]uint64, 65536)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("xyz")
			got, err := AppendFrame(prefix, tt.msg)
			if tt.wantLen == 0 {
				if !errors.Is(err, frame.ErrTooLarge) || !bytes.Equal(got, prefix) {
					t.Fatalf("AppendFrame = %d bytes, %v; want the prefix back and frame.ErrTooLarge", len(got), err)
				}
				if !strings.Contains(err.Error(), tt.msg.Op().String()) {
					t.Errorf("error %q does not name the opcode", err)
				}
				if err := WriteFrame(failWriter{t}, tt.msg); !errors.Is(err, frame.ErrTooLarge) {
					t.Errorf("WriteFrame = %v, want frame.ErrTooLarge", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			frame := got[len(prefix):]
			if n := int(frame[0])<<8 | int(frame[1]); n != tt.wantLen || len(frame) != 2+n {
				t.Fatalf("header says %d, frame is %d bytes; want payload %d", n, len(frame), tt.wantLen)
			}
			p, err := ReadFrame(bytes.NewReader(frame), nil)
			if err != nil || !bytes.Equal(p, frame[2:]) {
				t.Fatalf("ReadFrame = %d bytes, %v", len(p), err)
			}
			m, err := Decode(p)
			if err != nil || !sameMessage(m, tt.msg) {
				t.Errorf("Decode = %v", err)
			}
		})
	}
}

// failWriter fails the test if written to.
type failWriter struct{ t *testing.T }

func (w failWriter) Write(p []byte) (int, error) {
	w.t.Errorf("unexpected Write of %d bytes", len(p))
	return len(p), nil
}

// countWriter records each Write call.
type countWriter struct{ writes [][]byte }

func (w *countWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}

func TestWriteFrame_OneWritePerFrame(t *testing.T) {
	for _, v := range vectors {
		if v.decodeOnly {
			continue
		}
		var w countWriter
		if err := WriteFrame(&w, v.msg); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		want := cat([]byte{byte(len(v.payload) >> 8), byte(len(v.payload))}, v.payload)
		if len(w.writes) != 1 || !bytes.Equal(w.writes[0], want) {
			t.Errorf("%s: %d writes, first % x", v.name, len(w.writes), w.writes)
		}
	}
}

func TestWriteFrame_ReturnsWriteError(t *testing.T) {
	boom := errors.New("boom")
	w := errWriter{boom}
	if err := WriteFrame(w, PlayerLogout{User37: 1}); err != boom {
		t.Errorf("WriteFrame = %v, want the writer's error as it is", err)
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// stream is every canonical vector framed, back to back, and the payloads.
func stream() ([]byte, [][]byte) {
	var s []byte
	var payloads [][]byte
	for _, v := range vectors {
		if v.decodeOnly {
			continue
		}
		s = append(s, byte(len(v.payload)>>8), byte(len(v.payload)))
		s = append(s, v.payload...)
		payloads = append(payloads, v.payload)
	}
	return s, payloads
}

func TestReadFrame_Stream(t *testing.T) {
	s, payloads := stream()
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(s) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(s)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(s)) },
		"data+EOF": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(s)) },
	}
	for name, newReader := range readers {
		for _, initial := range []int{0, 1, 2, 16, MaxPayload} {
			r := newReader()
			buf := make([]byte, 0, initial)
			for i, want := range payloads {
				var err error
				buf, err = ReadFrame(r, buf)
				if err != nil || !bytes.Equal(buf, want) {
					t.Fatalf("%s, cap %d: frame %d = % x, %v; want % x", name, initial, i, buf, err, want)
				}
				if _, err := Decode(buf); err != nil {
					t.Fatalf("%s: frame %d: %v", name, i, err)
				}
			}
			if p, err := ReadFrame(r, buf); err != io.EOF || len(p) != 0 {
				t.Errorf("%s, cap %d: after the last frame: %d bytes, %v; want io.EOF", name, initial, len(p), err)
			}
		}
	}
}

func TestReadFrame_ZeroLength(t *testing.T) {
	r := bytes.NewReader(hx("0000 | 0002 00 0a"))
	p, err := ReadFrame(r, nil)
	if err != nil || len(p) != 0 {
		t.Fatalf("ReadFrame = % x, %v; want empty, nil", p, err)
	}
	if _, err := DecodeInbound(p); !errors.Is(err, frame.ErrEmpty) {
		t.Errorf("DecodeInbound(empty) = %v, want frame.ErrEmpty", err)
	}
	p, err = ReadFrame(r, p)
	if err != nil || !bytes.Equal(p, hx("00 0a")) {
		t.Errorf("next frame = % x, %v", p, err)
	}
}

func TestReadFrame_EOF(t *testing.T) {
	tests := []struct {
		name  string
		input []byte
		want  error
	}{
		{"nothing", nil, io.EOF},
		{"half a header", hx("00"), io.ErrUnexpectedEOF},
		{"header only", hx("000b"), io.ErrUnexpectedEOF},
		{"header and opcode", hx("000b | 01"), io.ErrUnexpectedEOF},
		{"one byte short", hx("000b | 01 | 0123456789abcdef | 01"), io.ErrUnexpectedEOF},
		{"max length, 3 bytes", hx("ffff | 07 0000"), io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		for name, r := range map[string]io.Reader{
			"whole":    bytes.NewReader(tt.input),
			"one byte": iotest.OneByteReader(bytes.NewReader(tt.input)),
			"data+EOF": iotest.DataErrReader(bytes.NewReader(tt.input)),
		} {
			p, err := ReadFrame(r, nil)
			if err != tt.want || len(p) != 0 {
				t.Errorf("%s, %s: ReadFrame = % x, %v; want %v", tt.name, name, p, err, tt.want)
			}
		}
	}
	// A complete frame followed by a partial one.
	r := iotest.OneByteReader(bytes.NewReader(hx("0001 0e | 0009 02 00000000")))
	if p, err := ReadFrame(r, nil); err != nil || !bytes.Equal(p, hx("0e")) {
		t.Fatalf("first frame = % x, %v", p, err)
	}
	if _, err := ReadFrame(r, nil); err != io.ErrUnexpectedEOF {
		t.Errorf("second frame: %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestReadFrame_ReaderErrorAsIs(t *testing.T) {
	boom := errors.New("boom")
	for _, input := range [][]byte{nil, hx("00"), hx("0009 02")} {
		r := io.MultiReader(bytes.NewReader(input), iotest.ErrReader(boom))
		if _, err := ReadFrame(r, nil); err != boom {
			t.Errorf("after % x: err = %v, want the reader's error as it is", input, err)
		}
	}
	r := iotest.TimeoutReader(bytes.NewReader(hx("0009 02 0000000000000001")))
	if _, err := ReadFrame(r, nil); err != iotest.ErrTimeout {
		t.Errorf("timeout mid-frame: %v, want iotest.ErrTimeout", err)
	}
}

func TestReadFrame_BufferReuse(t *testing.T) {
	frame := hx("000b | 01 | 0123456789abcdef | 0102")
	buf := make([]byte, 5, 11)
	p, err := ReadFrame(bytes.NewReader(frame), buf)
	if err != nil || &p[0] != &buf[:1][0] {
		t.Errorf("cap 11: payload not read into buf (err %v)", err)
	}
	small := make([]byte, 0, 10)
	p, err = ReadFrame(bytes.NewReader(frame), small)
	if err != nil || !bytes.Equal(p, frame[2:]) || &p[0] == &small[:1][0] {
		t.Errorf("cap 10: got % x, %v (must be a new buffer)", p, err)
	}
}
