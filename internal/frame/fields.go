package frame

import (
	"encoding/binary"
	"slices"
)

// The field both codecs encode alike: a list of u64 ids (player names in
// base 37), a u16 count followed by count big-endian u64s, which ends the
// payload (ether/proto's UpdateIgnoreList, worldsrv/proto's IgnoreList).

// AppendUint64s appends ids as a u16 count and the u64s. A list longer
// than 65535 ids, which no frame can carry, writes a wrong count; the
// codec's cap refuses the frame.
func AppendUint64s(b []byte, ids []uint64) []byte {
	b = slices.Grow(b, 2+8*len(ids))
	b = binary.BigEndian.AppendUint16(b, uint16(len(ids)))
	for _, id := range ids {
		b = binary.BigEndian.AppendUint64(b, id)
	}
	return b
}

// Uint64s decodes the list at p[off:], whose u16 count the caller has
// checked is there, into dst's storage (grown when too small) and returns
// it. The list must end the payload: a count that disagrees with p's
// length is a CountError, and dst is returned as it was.
func Uint64s(dst []uint64, p []byte, off int) ([]uint64, error) {
	count := int(binary.BigEndian.Uint16(p[off:]))
	if want := off + 2 + 8*count; len(p) != want {
		return dst, CountError(len(p), want, count)
	}
	ids := slices.Grow(dst[:0], count)
	for o := off + 2; o < len(p); o += 8 {
		ids = append(ids, binary.BigEndian.Uint64(p[o:]))
	}
	return ids, nil
}
