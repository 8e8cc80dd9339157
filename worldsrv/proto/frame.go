package proto

import (
	"fmt"
	"io"
	"sync"
)

// The same frames travel over TCP (a stream of frames) and WebSocket (one
// frame per binary message, length prefix included): ReadFrame and
// WriteFrame serve the stream, DecodeFrame and AppendFrame a message.

// AppendFrame appends one frame carrying m to dst: the u16 big-endian
// payload length, then the payload. It allocates nothing when dst has room
// (MaxFrame bytes always suffice). A payload over MaxPayload is
// ErrTooLarge, and dst is returned with its original length.
func AppendFrame(dst []byte, m Message) ([]byte, error) {
	start := len(dst)
	dst = m.AppendPayload(append(dst, 0, 0))
	n := len(dst) - start - HeaderLen
	if n > MaxPayload {
		return dst[:start], tooLargeError(m, n)
	}
	be.PutUint16(dst[start:], uint16(n))
	return dst, nil
}

func tooLargeError(m Message, n int) error {
	return fmt.Errorf("encode %T: payload is %d bytes, max %d: %w", m, n, MaxPayload, ErrTooLarge)
}

// framePool holds WriteFrame's scratch buffers, each MaxFrame bytes.
var framePool = sync.Pool{New: func() any { b := make([]byte, 0, MaxFrame); return &b }}

// WriteFrame writes one frame carrying m to w in a single Write call, so
// frames from concurrent writers to a connection that serialises its
// Writes (a net.Conn does) never interleave. It allocates nothing once its
// pool is warm. Write errors are returned as they are.
func WriteFrame(w io.Writer, m Message) error {
	bp := framePool.Get().(*[]byte)
	frame, err := AppendFrame((*bp)[:0], m)
	if err == nil {
		_, err = w.Write(frame)
	}
	framePool.Put(bp)
	return err
}

// ReadFrame reads one frame from r and returns its payload, opcode first.
// The payload is read into buf when cap(buf) is large enough, so a loop
// that passes each payload back in (p, err = ReadFrame(r, p)) stops
// allocating once its buffer has grown; make([]byte, 0, MaxPayload) never
// grows. A header announcing more than MaxPayload bytes is ErrTooLarge,
// read no further: the caller closes the connection. A zero-length frame
// returns an empty payload and no error (decoding it reports ErrEmpty).
// Errors from r are returned as they are, except that a stream ending
// inside a frame is io.ErrUnexpectedEOF; io.EOF means it ended cleanly
// between frames. On error the payload is empty, keeping buf's storage.
// Wrap a net.Conn in a bufio.Reader: ReadFrame makes two reads.
func ReadFrame(r io.Reader, buf []byte) (payload []byte, err error) {
	if cap(buf) < HeaderLen {
		buf = make([]byte, 0, 64)
	}
	hdr := buf[:HeaderLen]
	if _, err := io.ReadFull(r, hdr); err != nil {
		return buf[:0], err // io.EOF if nothing was read, else io.ErrUnexpectedEOF
	}
	n := int(be.Uint16(hdr))
	if n > MaxPayload {
		return buf[:0], frameTooLargeError(n)
	}
	if cap(buf) < n {
		buf = make([]byte, n, MaxPayload)
	}
	if _, err := io.ReadFull(r, buf[:n]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf[:0], err
	}
	return buf[:n], nil
}

// DecodeFrame returns the payload of msg, a WebSocket message that must be
// exactly one frame: its header, then as many bytes as the header says.
// The payload aliases msg. A header over MaxPayload is ErrTooLarge; a
// message shorter or longer than its frame is ErrBadFrame.
func DecodeFrame(msg []byte) ([]byte, error) {
	if len(msg) < HeaderLen {
		return nil, badFrameError(len(msg), HeaderLen)
	}
	n := int(be.Uint16(msg))
	if n > MaxPayload {
		return nil, frameTooLargeError(n)
	}
	if len(msg) != HeaderLen+n {
		return nil, badFrameError(len(msg), HeaderLen+n)
	}
	return msg[HeaderLen:len(msg):len(msg)], nil
}

func frameTooLargeError(n int) error {
	return fmt.Errorf("read frame: header says %d bytes, max %d: %w", n, MaxPayload, ErrTooLarge)
}

func badFrameError(got, want int) error {
	return fmt.Errorf("decode frame: message is %d bytes, its frame %d: %w", got, want, ErrBadFrame)
}
