package terrain

import "encoding/binary"

// mapHeaderLen is map.bin's header: width u16, height u16.
const mapHeaderLen = 4

// MarshalBinary is map.bin (world-client.md "The map"): width u16 and height u16
// big-endian, then width×height tile bytes row by row from the top-left. It never fails.
func (m *Map) MarshalBinary() ([]byte, error) {
	return m.marshal(), nil
}

func (m *Map) marshal() []byte {
	b := make([]byte, mapHeaderLen, mapHeaderLen+len(m.tiles))
	binary.BigEndian.PutUint16(b[0:], uint16(m.w))
	binary.BigEndian.PutUint16(b[2:], uint16(m.h))
	for _, t := range m.tiles {
		b = append(b, byte(t))
	}
	return b
}

// Hash is the sha256 of map.bin: equal hashes, equal maps.
func (m *Map) Hash() [32]byte { return m.hash }
