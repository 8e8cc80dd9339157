package proto

import (
	"fmt"
	"io"

	"github.com/corrosion/corrosion/internal/frame"
)

// The same frames travel over TCP (a stream of frames) and WebSocket (one
// frame per binary message, length prefix included): ReadFrame and
// WriteFrame serve the stream, DecodeFrame and AppendFrame a message.

// framing is this codec's internal/frame.Codec: frames of up to MaxPayload
// bytes, an encode error naming the message's Go type ("proto.Nearby").
var framing = frame.Codec{Max: MaxPayload, Name: func(m frame.Payload) string { return fmt.Sprintf("%T", m) }}

// AppendFrame appends one frame carrying m to dst: the u16 big-endian
// payload length, then the payload. It allocates nothing when dst has room
// (MaxFrame bytes always suffice). A payload over MaxPayload is
// ErrTooLarge, and dst is returned with its original length.
func AppendFrame(dst []byte, m Message) ([]byte, error) { return framing.Append(dst, m) }

// WriteFrame writes one frame carrying m to w in a single Write call, so
// frames from concurrent writers to a connection that serialises its
// Writes (a net.Conn does) never interleave. It allocates nothing once its
// pool is warm (frame.Codec.Write). Write errors are returned as they are.
func WriteFrame(w io.Writer, m Message) error { return framing.Write(w, m) }

// ReadFrame reads one frame from r and returns its payload, opcode first
// (frame.Codec.Read with MaxPayload as the cap). The payload is read into
// buf when cap(buf) is large enough, so a loop that passes each payload
// back in (p, err = ReadFrame(r, p)) stops allocating once its buffer has
// grown; make([]byte, 0, MaxPayload) never grows. A header announcing more
// than MaxPayload bytes is ErrTooLarge, read no further: the caller closes
// the connection. A zero-length frame returns an empty payload and no
// error (decoding it reports ErrEmpty). Errors from r are returned as they
// are, except that a stream ending inside a frame is io.ErrUnexpectedEOF;
// io.EOF means it ended cleanly between frames. On error the payload is
// empty, keeping buf's storage. Wrap a net.Conn in a bufio.Reader:
// ReadFrame makes two reads.
func ReadFrame(r io.Reader, buf []byte) (payload []byte, err error) {
	return framing.Read(r, buf)
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
	if err := framing.CheckLength(n); err != nil {
		return nil, err
	}
	if len(msg) != HeaderLen+n {
		return nil, badFrameError(len(msg), HeaderLen+n)
	}
	return msg[HeaderLen:len(msg):len(msg)], nil
}

func badFrameError(got, want int) error {
	return fmt.Errorf("decode frame: message is %d bytes, its frame %d: %w", got, want, ErrBadFrame)
}
