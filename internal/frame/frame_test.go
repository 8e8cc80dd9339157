package frame

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

type raw []byte

func (r raw) AppendPayload(dst []byte) []byte { return append(dst, r...) }

// codec is a Codec of raw payloads of up to max bytes.
func codec(max int) *Codec { return &Codec{Max: max, Name: func(Payload) string { return "raw" }} }

// A frame written is the frame read; the cap holds both ways; a stream cut
// inside a frame is io.ErrUnexpectedEOF and one ending between frames io.EOF.
func TestFrame_RoundTripAndCaps(t *testing.T) {
	c := codec(100)
	var w bytes.Buffer
	for _, p := range []raw{{1}, {2, 3, 4}, {}, bytes.Repeat([]byte{9}, 100)} {
		if err := c.Write(&w, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Write(&w, raw(make([]byte, 101))); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Write of 101 bytes with a cap of 100: %v", err)
	}
	r := bytes.NewReader(w.Bytes())
	for _, want := range [][]byte{{1}, {2, 3, 4}, {}, bytes.Repeat([]byte{9}, 100)} {
		got, err := c.Read(r, nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Read = %v, %v; want %v", got, err, want)
		}
	}
	if _, err := c.Read(r, nil); err != io.EOF {
		t.Fatalf("Read at the end = %v, want io.EOF", err)
	}
	if _, err := c.Read(bytes.NewReader([]byte{0, 101}), nil); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read of a header over the cap = %v", err)
	}
	if _, err := c.Read(bytes.NewReader([]byte{0, 3, 1}), nil); err != io.ErrUnexpectedEOF {
		t.Fatalf("Read of a cut frame = %v", err)
	}
	if _, err := c.Read(bytes.NewReader([]byte{0}), nil); err != io.ErrUnexpectedEOF {
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
		c := codec(max)
		r := bytes.NewReader(stream)
		var out bytes.Buffer
		for {
			p, err := c.Read(r, nil)
			if err != nil {
				if !bytes.HasPrefix(stream, out.Bytes()) {
					t.Fatalf("re-encoded %x is not a prefix of %x", out.Bytes(), stream)
				}
				return
			}
			if len(p) > max {
				t.Fatalf("a %d-byte payload over the cap %d", len(p), max)
			}
			if err := c.Write(&out, raw(p)); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// A size rule fits what it says, and says it as the length errors do.
func TestSize_FitsAndString(t *testing.T) {
	for _, c := range []struct {
		s        Size
		fits     []int
		misfits  []int
		variable bool
		text     string
	}{
		{Fixed(11), []int{11}, []int{10, 12}, false, "11"},
		{AtLeast(18), []int{18, 1 << 20}, []int{0, 17}, true, "at least 18"},
		{Between(3, 513), []int{3, 513}, []int{2, 514}, true, "3–513"},
		{Size{}, []int{0}, []int{1}, false, "0"},
	} {
		for _, n := range c.fits {
			if !c.s.Fits(n) {
				t.Errorf("%+v does not fit %d", c.s, n)
			}
		}
		for _, n := range c.misfits {
			if c.s.Fits(n) {
				t.Errorf("%+v fits %d", c.s, n)
			}
		}
		if c.s.Variable() != c.variable || c.s.String() != c.text {
			t.Errorf("%+v: variable %v, %q; want %v, %q", c.s, c.s.Variable(), c.s.String(), c.variable, c.text)
		}
	}
}

// Reject says why a table refused a payload, wrapping the sentinel.
func TestReject(t *testing.T) {
	login := &Row{Name: "Login", Size: Between(3, 513)}
	for _, c := range []struct {
		payload []byte
		row     *Row
		want    string
		is      error
	}{
		{nil, nil, "decode client: proto: empty payload", ErrEmpty},
		{[]byte{200}, &Row{}, "decode client: opcode 200: proto: unknown opcode", ErrUnknownOp},
		{[]byte{1, 0}, login, "decode client Login (1): payload is 2 bytes, want 3–513: proto: wrong payload length", ErrLength},
	} {
		err := Reject("decode client", c.payload, c.row)
		if !errors.Is(err, c.is) || err.Error() != c.want {
			t.Errorf("Reject(% x) = %v, want %q", c.payload, err, c.want)
		}
	}
	if err := CountError(11, 19, 2); !errors.Is(err, ErrLength) || err.Error() != "payload is 11 bytes, want 19 for count 2: proto: wrong payload length" {
		t.Errorf("CountError = %v", err)
	}
}

// A Codec frames with its cap and names the message an encode error is
// about; a write error of w's own is returned as it is.
func TestCodec(t *testing.T) {
	c := codec(3)
	b, err := c.Append(nil, raw{1, 2, 3})
	if err != nil || !bytes.Equal(b, []byte{0, 3, 1, 2, 3}) {
		t.Fatalf("Append = % x, %v", b, err)
	}
	const want = "encode raw: payload is 4 bytes, max 3: proto: payload too large"
	if _, err := c.Append(nil, raw{1, 2, 3, 4}); err == nil || err.Error() != want {
		t.Errorf("Append over the cap: %v, want %q", err, want)
	}
	if err := c.Write(io.Discard, raw{1, 2, 3, 4}); err == nil || err.Error() != want {
		t.Errorf("Write over the cap: %v, want %q", err, want)
	}
	if err := c.Write(failWriter{}, raw{1}); err != io.ErrClosedPipe {
		t.Errorf("Write to a failing writer: %v, want io.ErrClosedPipe as it is", err)
	}
	if p, err := c.Read(bytes.NewReader(b), nil); err != nil || !bytes.Equal(p, []byte{1, 2, 3}) {
		t.Errorf("Read = % x, %v", p, err)
	}
	if _, err := c.Read(bytes.NewReader([]byte{0, 4, 1, 2, 3, 4}), nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read over the cap: %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// A list of ids round-trips, reusing the caller's storage; a count that
// disagrees with the length is ErrLength and keeps the caller's slice.
func TestUint64s(t *testing.T) {
	ids := []uint64{1, 1 << 40, 7}
	p := AppendUint64s([]byte{0xee}, ids)
	if want := []byte{0xee, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}; !bytes.Equal(p, want) {
		t.Fatalf("AppendUint64s = % x, want % x", p, want)
	}
	dst := make([]uint64, 1, 8)
	got, err := Uint64s(dst, p, 1)
	if err != nil || len(got) != 3 || got[0] != 1 || got[1] != 1<<40 || got[2] != 7 || &got[0] != &dst[0] {
		t.Fatalf("Uint64s = %v, %v (storage reused: %v)", got, err, len(got) > 0 && &got[0] == &dst[0])
	}
	got, err = Uint64s(dst, p[:len(p)-1], 1)
	const want = "payload is 26 bytes, want 27 for count 3: proto: wrong payload length"
	if !errors.Is(err, ErrLength) || err.Error() != want || len(got) != 1 {
		t.Errorf("Uint64s of a short list = %v, %v; want dst and %q", got, err, want)
	}
}

// FuzzUint64s: whatever the payload, Uint64s either refuses it or returns
// the ids that AppendUint64s writes back to the same bytes.
func FuzzUint64s(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 9})
	f.Add([]byte{0, 2, 1})
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) < 2 {
			return
		}
		ids, err := Uint64s(nil, p, 0)
		if err != nil {
			if !errors.Is(err, ErrLength) {
				t.Fatalf("error %v is not ErrLength", err)
			}
			return
		}
		if back := AppendUint64s(nil, ids); !bytes.Equal(back, p) {
			t.Fatalf("% x decoded to %v, which encodes to % x", p, ids, back)
		}
	})
}
