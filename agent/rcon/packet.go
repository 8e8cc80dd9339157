package rcon

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	gorcon "github.com/gorcon/rcon"
)

// Source RCON packet types (gorcon's names, shorter).
const (
	typeResponseValue = gorcon.SERVERDATA_RESPONSE_VALUE // 0
	typeExecCommand   = gorcon.SERVERDATA_EXECCOMMAND    // 2
	typeAuthResponse  = gorcon.SERVERDATA_AUTH_RESPONSE  // 2
	typeAuth          = gorcon.SERVERDATA_AUTH           // 3
)

// Packet layout: size (int32 LE, counts what follows), id, type, body,
// two NUL bytes. The smallest legal size is therefore 10.
const (
	sizeFieldLen  = 4
	minPacketSize = int(gorcon.MinPacketSize) // id + type + 2 NULs
	// maxPacketBody caps one packet's body. The Valve spec says 4096 per
	// packet, but some servers send bigger packets; we accept anything that
	// fits in one whole reply and no more.
	maxPacketBody = MaxResponseBytes
)

// packet is one decoded Source RCON packet. body aliases the reader's
// buffer and is valid until the next read.
type packet struct {
	id   int32
	typ  int32
	body []byte
}

// packetReader decodes packets from a buffered stream, reusing one body
// buffer. gorcon's Packet.ReadFrom would do, except that it allocates
// whatever size the peer declares (up to 2 GiB) before reading: ours
// checks the size against a cap first.
type packetReader struct {
	br      *bufio.Reader
	maxBody int
	hdr     [12]byte
	buf     []byte
}

func newPacketReader(r io.Reader, maxBody int) *packetReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 16<<10)
	}
	return &packetReader{br: br, maxBody: maxBody}
}

// next reads one packet. A clean end of stream before the first byte is
// io.EOF; a stream ending mid-packet is io.ErrUnexpectedEOF; a bad size or
// padding is ErrProtocol; a body over the cap is ErrTooLarge.
func (pr *packetReader) next() (packet, error) {
	if _, err := io.ReadFull(pr.br, pr.hdr[:sizeFieldLen]); err != nil {
		return packet{}, err
	}
	size := int64(int32(binary.LittleEndian.Uint32(pr.hdr[:4])))
	if size < int64(minPacketSize) {
		return packet{}, fmt.Errorf("%w: packet size %d below minimum %d", ErrProtocol, size, minPacketSize)
	}
	if size-int64(minPacketSize) > int64(pr.maxBody) {
		return packet{}, fmt.Errorf("%w: packet body of %d bytes over the %d byte cap", ErrTooLarge, size-int64(minPacketSize), pr.maxBody)
	}
	if _, err := io.ReadFull(pr.br, pr.hdr[4:12]); err != nil {
		return packet{}, unexpected(err)
	}
	n := int(size) - 8 // body + 2 NULs
	if cap(pr.buf) < n {
		pr.buf = make([]byte, n, max(n, 4096))
	}
	pr.buf = pr.buf[:n]
	if _, err := io.ReadFull(pr.br, pr.buf); err != nil {
		return packet{}, unexpected(err)
	}
	if pr.buf[n-2] != 0 || pr.buf[n-1] != 0 {
		return packet{}, fmt.Errorf("%w: packet not terminated by two NUL bytes", ErrProtocol)
	}
	return packet{
		id:   int32(binary.LittleEndian.Uint32(pr.hdr[4:8])),
		typ:  int32(binary.LittleEndian.Uint32(pr.hdr[8:12])),
		body: pr.buf[:n-2],
	}, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// appendPacket encodes one packet into buf with gorcon's encoder.
func appendPacket(buf *bytes.Buffer, typ, id int32, body string) {
	_, _ = gorcon.NewPacket(typ, id, body).WriteTo(buf) // writes to a bytes.Buffer cannot fail
}
