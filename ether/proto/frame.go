package proto

import (
	"io"

	"github.com/corrosion/corrosion/internal/frame"
)

// framing is this codec's internal/frame.Codec: frames of up to MaxPayload
// bytes, an encode error naming the message's opcode.
var framing = frame.Codec{Max: MaxPayload, Name: func(m frame.Payload) string { return m.(Message).Op().String() }}

// AppendFrame appends one frame carrying m to dst: the u16 big-endian
// payload length, then the payload. It allocates nothing when dst has room.
// A payload over MaxPayload is frame.ErrTooLarge, and dst is returned with its
// original length.
func AppendFrame(dst []byte, m Message) ([]byte, error) { return framing.Append(dst, m) }

// WriteLinkAuth is how a world opens its link to an ether that may require
// a link token (RS_LINK_TOKEN): it writes the LinkAuth frame carrying token
// to w, the new connection, which must happen before any other frame. An
// empty token writes nothing, so a world without one speaks only the seed's
// table. A token over MaxPayload-1 bytes is frame.ErrTooLarge.
func WriteLinkAuth(w io.Writer, token string) error {
	if token == "" {
		return nil
	}
	return WriteFrame(w, LinkAuth{Token: []byte(token)})
}

// WriteFrame writes one frame carrying m to w in a single Write call, so
// frames from concurrent writers to a connection that serialises its Writes
// (a net.Conn does) never interleave (frame.Codec.Write: a pooled
// buffer). Write errors are returned as they are.
func WriteFrame(w io.Writer, m Message) error { return framing.Write(w, m) }

// ReadFrame reads one frame from r and returns its payload, opcode first
// (frame.Codec.Read; a u16 length cannot announce more than MaxPayload).
// The payload is read into buf when cap(buf) is large enough, so a loop
// that passes each payload back in (p, err = ReadFrame(r, p)) stops
// allocating once its buffer has grown; make([]byte, 0, MaxPayload) never
// grows. A zero-length frame returns an empty payload and no error (decoding
// it reports frame.ErrEmpty). Errors from r are returned as they are, except that
// a stream ending inside a frame is io.ErrUnexpectedEOF; io.EOF means it
// ended cleanly between frames. On error the payload is empty, keeping buf's
// storage. Wrap a net.Conn in a bufio.Reader: ReadFrame makes two reads.
func ReadFrame(r io.Reader, buf []byte) (payload []byte, err error) {
	return framing.Read(r, buf)
}
