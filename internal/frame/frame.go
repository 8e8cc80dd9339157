// Package frame is the framing that the module's two binary codecs share
// (ether/proto: world ⇄ ether; worldsrv/proto: game client ⇄ world): a u16
// big-endian payload length, then the payload, opcode first. It reads and
// writes frames (a Codec: one protocol's cap and how its errors name a
// message), and holds what both codecs' tables and errors share: the size
// rule of a message (Size), a table row's name and size (Row), the
// sentinel errors and the texts of a refused payload (Reject), and the one
// field type both encode alike (a u16-counted list of u64s). Each codec
// keeps its own opcodes, table and messages. No domain logic.
package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

const (
	// HeaderLen is the size of the frame header: the u16 payload length.
	HeaderLen = 2
	// MaxPayload is the most a u16 length can announce; a codec may set a
	// lower cap of its own (Codec.Max).
	MaxPayload = 65535
)

// Sentinel errors. The codecs return errors that wrap one of them (test
// with errors.Is), and name them as their own (proto.ErrEmpty is ErrEmpty).
var (
	// ErrEmpty: a zero-length payload, which has no opcode.
	ErrEmpty = errors.New("proto: empty payload")
	// ErrUnknownOp: an opcode the codec's table does not define (for
	// that direction).
	ErrUnknownOp = errors.New("proto: unknown opcode")
	// ErrLength: a payload of the wrong length for its opcode.
	ErrLength = errors.New("proto: wrong payload length")
	// ErrTooLarge: a payload over the codec's cap, which a frame may not
	// carry (on write, or announced by a header on read).
	ErrTooLarge = errors.New("proto: payload too large")
)

// Payload is a message that can write its payload: the opcode byte, then
// its fields.
type Payload interface {
	AppendPayload(dst []byte) []byte
}

// A Codec is one protocol's framing: the cap on its payloads and how its
// encode errors name a message. A codec package keeps one in a variable;
// its AppendFrame, WriteFrame and ReadFrame are the Codec's methods.
type Codec struct {
	Max  int                  // the largest payload, opcode included (at most MaxPayload)
	Name func(Payload) string // a message's name in an encode error
}

// Append appends one frame carrying m to dst: the length, then the
// payload. It allocates nothing when dst has room. A payload over c.Max
// bytes is ErrTooLarge, the error naming m and its size, and dst is
// returned with its original length.
func (c *Codec) Append(dst []byte, m Payload) ([]byte, error) {
	start := len(dst)
	dst = m.AppendPayload(append(dst, 0, 0))
	n := len(dst) - start - HeaderLen
	if n > c.Max {
		return dst[:start], c.tooLarge(m, n)
	}
	binary.BigEndian.PutUint16(dst[start:], uint16(n))
	return dst, nil
}

// tooLarge is Append's error, kept out of line so that Append stays small.
func (c *Codec) tooLarge(m Payload, n int) error {
	return fmt.Errorf("encode %s: payload is %d bytes, max %d: %w", c.Name(m), n, c.Max, ErrTooLarge)
}

// pool holds Write's scratch buffers.
var pool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// MaxPooled is the largest buffer Write returns to its pool: a rare big
// frame (a save blob) gets a buffer of its own and lets the GC have it.
const MaxPooled = 16 << 10

// Write writes one frame carrying m to w in a single Write call, so frames
// from concurrent writers to a connection that serialises its Writes (a
// net.Conn does) never interleave. It allocates nothing once its pool is
// warm (for frames up to MaxPooled). Append's errors, and w's as they are.
func (c *Codec) Write(w io.Writer, m Payload) error {
	bp := pool.Get().(*[]byte)
	frame, err := c.Append((*bp)[:0], m)
	if err == nil {
		_, err = w.Write(frame)
	}
	if cap(frame) <= MaxPooled {
		*bp = frame[:0]
		pool.Put(bp)
	}
	return err
}

// CheckLength is the read side's cap: a header announcing n payload bytes
// is ErrTooLarge when n is over c.Max. Read applies it; so does a codec
// that takes a whole frame from elsewhere (a WebSocket message).
func (c *Codec) CheckLength(n int) error {
	if n > c.Max {
		return c.headerTooLarge(n)
	}
	return nil
}

// headerTooLarge is CheckLength's error, kept out of line so that
// CheckLength inlines.
func (c *Codec) headerTooLarge(n int) error {
	return fmt.Errorf("read frame: header says %d bytes, max %d: %w", n, c.Max, ErrTooLarge)
}

// Read reads one frame from r and returns its payload, opcode first. The
// payload is read into buf when cap(buf) is large enough, so a loop that
// passes each payload back in (p, err = c.Read(r, p)) stops allocating
// once its buffer has grown. A header announcing more than c.Max bytes is
// ErrTooLarge, read no further (the caller closes the connection). A
// zero-length frame returns an empty payload and no error. Errors from r
// are returned as they are, except that a stream ending inside a frame is
// io.ErrUnexpectedEOF; io.EOF means it ended cleanly between frames. On
// error the payload is empty, keeping buf's storage. Wrap a net.Conn in a
// bufio.Reader: Read makes two reads.
func (c *Codec) Read(r io.Reader, buf []byte) (payload []byte, err error) {
	if cap(buf) < HeaderLen {
		buf = make([]byte, 0, 64)
	}
	hdr := buf[:HeaderLen]
	if _, err := io.ReadFull(r, hdr); err != nil {
		return buf[:0], err // io.EOF if nothing was read, else io.ErrUnexpectedEOF
	}
	n := int(binary.BigEndian.Uint16(hdr))
	if err := c.CheckLength(n); err != nil {
		return buf[:0], err
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	if _, err := io.ReadFull(r, buf[:n]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf[:0], err
	}
	return buf[:n], nil
}
