package admin

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Source RCON packet: size (int32 LE, counting what follows it), id (int32
// LE), type (int32 LE), body, NUL, NUL. Valve caps size at 4096, so a body
// holds at most 4086 bytes; the server enforces that on what it reads and
// splits its replies into packets of that size.
const (
	// MaxPacketSize is the largest size field, both ways.
	MaxPacketSize = 4096
	// minPacketSize is id + type + two NULs.
	minPacketSize = 10
	// MaxBodyBytes is the largest body of one packet, and so the longest
	// command.
	MaxBodyBytes = MaxPacketSize - minPacketSize
)

// packetType is a Source RCON packet type. Two share the value 2: which
// one a packet is depends on its direction.
type packetType int32

const (
	typeResponseValue packetType = 0 // SERVERDATA_RESPONSE_VALUE, both ways
	typeExecCommand   packetType = 2 // SERVERDATA_EXECCOMMAND, client → server
	typeAuthResponse  packetType = 2 // SERVERDATA_AUTH_RESPONSE, server → client
	typeAuth          packetType = 3 // SERVERDATA_AUTH, client → server
)

// authFailedID is the id of an AUTH_RESPONSE refusing the password.
const authFailedID int32 = -1

// probeTrailer is the body of the packet Valve servers send after mirroring
// an empty RESPONSE_VALUE.
const probeTrailer = "\x00\x01\x00\x00"

// ErrMalformed: a packet that breaks the format (a size out of range, a
// body not ended by two NULs or holding one). The connection is closed.
var ErrMalformed = errors.New("malformed rcon packet")

// packet is one decoded request. body aliases the reader's buffer: valid
// until the next read.
type packet struct {
	id   int32
	typ  packetType
	body []byte
}

// packetReader decodes packets from a stream with one reused buffer,
// checking the size field before reading the rest.
type packetReader struct {
	br  *bufio.Reader
	buf [MaxPacketSize]byte
}

func newPacketReader(r io.Reader) *packetReader {
	return &packetReader{br: bufio.NewReaderSize(r, MaxPacketSize+4)}
}

// next reads one packet. A stream ending cleanly between packets is
// io.EOF, one ending inside a packet io.ErrUnexpectedEOF; a bad packet is
// ErrMalformed.
func (pr *packetReader) next() (packet, error) {
	var head [4]byte
	if _, err := io.ReadFull(pr.br, head[:]); err != nil {
		return packet{}, err
	}
	size := int32(binary.LittleEndian.Uint32(head[:]))
	if size < minPacketSize || size > MaxPacketSize {
		return packet{}, fmt.Errorf("%w: size %d outside %d-%d", ErrMalformed, size, minPacketSize, MaxPacketSize)
	}
	rest := pr.buf[:size]
	if _, err := io.ReadFull(pr.br, rest); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return packet{}, err
	}
	return decodePacket(rest)
}

// decodePacket decodes what follows a packet's size field.
func decodePacket(rest []byte) (packet, error) {
	if len(rest) < minPacketSize {
		return packet{}, fmt.Errorf("%w: %d bytes after the size, at least %d needed", ErrMalformed, len(rest), minPacketSize)
	}
	n := len(rest)
	if rest[n-2] != 0 || rest[n-1] != 0 {
		return packet{}, fmt.Errorf("%w: not ended by two NUL bytes", ErrMalformed)
	}
	body := rest[8 : n-2]
	for _, c := range body {
		if c == 0 {
			return packet{}, fmt.Errorf("%w: NUL byte inside the body", ErrMalformed)
		}
	}
	return packet{
		id:   int32(binary.LittleEndian.Uint32(rest[0:4])),
		typ:  packetType(int32(binary.LittleEndian.Uint32(rest[4:8]))),
		body: body,
	}, nil
}

// appendPacket appends one packet; body must fit in MaxBodyBytes.
func appendPacket(dst []byte, id int32, typ packetType, body string) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(body)+minPacketSize))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(id))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(typ))
	dst = append(dst, body...)
	return append(dst, 0, 0)
}

// appendReply appends text as RESPONSE_VALUE packets carrying id, split
// into bodies of at most MaxBodyBytes (one empty packet for "").
func appendReply(dst []byte, id int32, text string) []byte {
	for first := true; first || text != ""; first = false {
		n := min(len(text), MaxBodyBytes)
		dst = appendPacket(dst, id, typeResponseValue, text[:n])
		text = text[n:]
	}
	return dst
}
