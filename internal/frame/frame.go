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
	// lower cap of its own (the max argument below).
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

// Append appends one frame carrying p to dst: the length, then the
// payload. It allocates nothing when dst has room. A payload over max
// bytes is ErrTooLarge (the error says its size), and dst is returned with
// its original length.
func Append(dst []byte, p Payload, max int) ([]byte, error) {
	start := len(dst)
	dst = p.AppendPayload(append(dst, 0, 0))
	n := len(dst) - start - HeaderLen
	if n > max {
		return dst[:start], fmt.Errorf("payload is %d bytes, max %d: %w", n, max, ErrTooLarge)
	}
	binary.BigEndian.PutUint16(dst[start:], uint16(n))
	return dst, nil
}

// pool holds Write's scratch buffers.
var pool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// MaxPooled is the largest buffer Write returns to its pool: a rare big
// frame (a save blob) gets a buffer of its own and lets the GC have it.
const MaxPooled = 16 << 10

// Write writes one frame carrying p to w in a single Write call, so frames
// from concurrent writers to a connection that serialises its Writes (a
// net.Conn does) never interleave. It allocates nothing once its pool is
// warm (for frames up to MaxPooled). Append's errors, and w's as they are.
func Write(w io.Writer, p Payload, max int) error {
	bp := pool.Get().(*[]byte)
	frame, err := Append((*bp)[:0], p, max)
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
// is ErrTooLarge when n is over max. Read applies it; so does a codec that
// takes a whole frame from elsewhere (a WebSocket message).
func CheckLength(n, max int) error {
	if n > max {
		return fmt.Errorf("read frame: header says %d bytes, max %d: %w", n, max, ErrTooLarge)
	}
	return nil
}

// Read reads one frame from r and returns its payload, opcode first. The
// payload is read into buf when cap(buf) is large enough, so a loop that
// passes each payload back in (p, err = Read(r, p, max)) stops allocating
// once its buffer has grown. A header announcing more than max bytes is
// ErrTooLarge, read no further (the caller closes the connection). A
// zero-length frame returns an empty payload and no error. Errors from r
// are returned as they are, except that a stream ending inside a frame is
// io.ErrUnexpectedEOF; io.EOF means it ended cleanly between frames. On
// error the payload is empty, keeping buf's storage. Wrap a net.Conn in a
// bufio.Reader: Read makes two reads.
func Read(r io.Reader, buf []byte, max int) (payload []byte, err error) {
	if cap(buf) < HeaderLen {
		buf = make([]byte, 0, 64)
	}
	hdr := buf[:HeaderLen]
	if _, err := io.ReadFull(r, hdr); err != nil {
		return buf[:0], err // io.EOF if nothing was read, else io.ErrUnexpectedEOF
	}
	n := int(binary.BigEndian.Uint16(hdr))
	if err := CheckLength(n, max); err != nil {
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

// A Codec is one protocol's framing: the cap on its payloads and how its
// encode errors name a message. Its methods are Append, Write and Read
// with that cap, an encode error saying "encode <name>: ...". A codec
// package keeps one in a variable and its AppendFrame, WriteFrame and
// ReadFrame call it.
type Codec[P Payload] struct {
	Max  int            // the largest payload, opcode included (at most MaxPayload)
	Name func(P) string // a message's name in an encode error
}

// Append is the package's Append with c.Max, its error naming m.
func (c Codec[P]) Append(dst []byte, m P) ([]byte, error) {
	dst, err := Append(dst, m, c.Max)
	if err != nil {
		return dst, fmt.Errorf("encode %s: %w", c.Name(m), err)
	}
	return dst, nil
}

// Write is the package's Write with c.Max, an ErrTooLarge naming m; w's
// errors are returned as they are.
func (c Codec[P]) Write(w io.Writer, m P) error {
	err := Write(w, m, c.Max)
	if errors.Is(err, ErrTooLarge) {
		return fmt.Errorf("encode %s: %w", c.Name(m), err)
	}
	return err
}

// Read is the package's Read with c.Max.
func (c Codec[P]) Read(r io.Reader, buf []byte) ([]byte, error) { return Read(r, buf, c.Max) }
