package proto

import (
	"fmt"
	"io"
	"sync"
)

// AppendFrame appends one frame carrying m to dst: the u16 big-endian
// payload length, then the payload. It allocates nothing when dst has room.
// A payload over MaxPayload is ErrTooLarge, and dst is returned with its
// original length.
func AppendFrame(dst []byte, m Message) ([]byte, error) {
	start := len(dst)
	dst = m.AppendPayload(append(dst, 0, 0))
	n := len(dst) - start - HeaderLen
	if n > MaxPayload {
		return dst[:start], fmt.Errorf("encode %s: payload is %d bytes, max %d: %w",
			m.Op(), n, MaxPayload, ErrTooLarge)
	}
	be.PutUint16(dst[start:], uint16(n))
	return dst, nil
}

// WriteLinkAuth is how a world opens its link to an ether that may require
// a link token (RS_LINK_TOKEN): it writes the LinkAuth frame carrying token
// to w, the new connection, which must happen before any other frame. An
// empty token writes nothing, so a world without one speaks only the seed's
// table. A token over MaxPayload-1 bytes is ErrTooLarge.
func WriteLinkAuth(w io.Writer, token string) error {
	if token == "" {
		return nil
	}
	return WriteFrame(w, LinkAuth{Token: []byte(token)})
}

// framePool holds WriteFrame's scratch buffers.
var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxPooled is the largest buffer WriteFrame returns to its pool; a rare big
// frame (a save blob) gets a buffer of its own and lets the GC have it.
const maxPooled = 16 << 10

// WriteFrame writes one frame carrying m to w in a single Write call, so
// frames from concurrent writers to a connection that serialises its Writes
// (a net.Conn does) never interleave. Write errors are returned as they are.
func WriteFrame(w io.Writer, m Message) error {
	bp := framePool.Get().(*[]byte)
	frame, err := AppendFrame((*bp)[:0], m)
	if err == nil {
		_, err = w.Write(frame)
	}
	if cap(frame) <= maxPooled {
		*bp = frame[:0]
		framePool.Put(bp)
	}
	return err
}

// ReadFrame reads one frame from r and returns its payload, opcode first.
// The payload is read into buf when cap(buf) is large enough, so a loop
// that passes each payload back in (p, err = ReadFrame(r, p)) stops
// allocating once its buffer has grown; make([]byte, 0, MaxPayload) never
// grows. A zero-length frame returns an empty payload and no error (decoding
// it reports ErrEmpty). Errors from r are returned as they are, except that
// a stream ending inside a frame is io.ErrUnexpectedEOF; io.EOF means it
// ended cleanly between frames. On error the payload is empty, keeping buf's
// storage. Wrap a net.Conn in a bufio.Reader: ReadFrame makes two reads.
func ReadFrame(r io.Reader, buf []byte) (payload []byte, err error) {
	if cap(buf) < HeaderLen {
		buf = make([]byte, 0, 64)
	}
	hdr := buf[:HeaderLen]
	if _, err := io.ReadFull(r, hdr); err != nil {
		return buf[:0], err // io.EOF if nothing was read, else io.ErrUnexpectedEOF
	}
	n := int(be.Uint16(hdr))
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
