package engine

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// tileLimit is how many entries a tile's list keeps: MaxNearby others
// plus the occupant the list is for.
const tileLimit = proto.MaxNearby + 1

// entrySize is the encoded size of one Nearby entry (pid u16, name37
// u64, x u16, y u16): see proto.Nearby.
const entrySize = 2 + 8 + 2 + 2

// distBits holds a distance up to NearbyRadius in a sort key.
const distBits = 4

var _ [1<<distBits - 1 - proto.NearbyRadius]struct{} // NearbyRadius fits in distBits

// tileLists holds, for one info phase, each occupied tile's list, encoded:
// the Nearby entries of the players within NearbyRadius of the tile,
// occupants included, nearest first then by pid, at most tileLimit. Every
// player on the tile shares it, less its own entry (see of), so a list
// is built and encoded once per tile, not once per player.
type tileLists struct {
	pidBits uint        // immutable after New: the bits of the largest pid
	entries [][2]uint64 // by pid: the player's entry this tick, bytes 0-7 and 6-13 as little-endian words
	spans   []listSpan  // by the tile's index in tileIndex.tiles
	arena   []byte      // the lists' entries, side by side
	keys    []uint32    // scratch: a tile's sort keys
	tmp     []uint32    // scratch: the radix sort's other buffer
}

// listSpan is a tile's list in the arena: n entries from byte off.
type listSpan struct{ off, n int32 }

func newTileLists(maxPID int) tileLists {
	return tileLists{pidBits: uint(bits.Len(uint(maxPID))), entries: make([][2]uint64, maxPID+1)}
}

// compute builds every occupied tile's list from ix over players (by pid).
func (l *tileLists) compute(ix *tileIndex, players []*player) {
	for pid, p := range players {
		if p != nil {
			l.entries[pid] = encodeEntry(p)
		}
	}
	l.spans = slices.Grow(l.spans[:0], len(ix.tiles))[:len(ix.tiles)]
	l.arena = l.arena[:0]
	for i, t := range ix.tiles {
		l.spans[i] = l.tile(ix, int(t))
	}
}

// encodeEntry is p's Nearby entry as two overlapping words (see entries).
func encodeEntry(p *player) [2]uint64 {
	var b [entrySize]byte
	binary.BigEndian.PutUint16(b[0:], p.pid)
	binary.BigEndian.PutUint64(b[2:], p.user37)
	binary.BigEndian.PutUint16(b[10:], p.pos.X)
	binary.BigEndian.PutUint16(b[12:], p.pos.Y)
	return [2]uint64{binary.LittleEndian.Uint64(b[0:]), binary.LittleEndian.Uint64(b[entrySize-8:])}
}

// tile builds and encodes tile t's list. Only the players within the
// least radius that holds tileLimit of them are candidates (the tile
// index counts any square in four lookups), so a crowd costs what its
// list costs rather than everyone within NearbyRadius; their keys
// (distance, then pid) are radix sorted.
func (l *tileLists) tile(ix *tileIndex, t int) listSpan {
	x, y := t%ix.width, t/ix.width
	keys := ix.collect(x, y, ix.radius(x, y), l.pidBits, l.keys[:0])
	keys, l.tmp = radixSort(keys, l.tmp, l.pidBits+distBits)
	l.keys = keys
	return l.encode(keys[:min(len(keys), tileLimit)])
}

// encode appends the entries of the players keys name to the arena.
func (l *tileLists) encode(keys []uint32) listSpan {
	off := len(l.arena)
	size := entrySize * len(keys)
	// Each entry is two 8-byte stores; the last one's second store
	// runs 2 bytes past its end, into the next list's room.
	l.arena = slices.Grow(l.arena, size+2)[:off+size+2]
	b := l.arena[off:]
	mask := uint32(1)<<l.pidBits - 1
	for i, k := range keys {
		e := &l.entries[k&mask]
		binary.LittleEndian.PutUint64(b[i*entrySize:], e[0])
		binary.LittleEndian.PutUint64(b[i*entrySize+entrySize-8:], e[1])
	}
	l.arena = l.arena[:off+size]
	return listSpan{off: int32(off), n: int32(len(keys))}
}

// of is the Nearby entries of the player pid, in two parts: its tile's
// list without its own entry, at most MaxNearby. The tile's occupants
// lead its list in pid order, so the player's entry is at its rank, unless
// more than tileLimit share the tile and it ranks past them.
func (l *tileLists) of(ix *tileIndex, pid uint16) (a, b []byte) {
	s := l.spans[ix.tileOf[pid]]
	list := l.arena[s.off : s.off+entrySize*s.n]
	r := ix.rank[pid]
	if r >= s.n {
		return list[:entrySize*proto.MaxNearby], nil
	}
	return list[:entrySize*r], list[entrySize*(r+1):]
}

// sameEntries reports whether sent holds a's entries then b's.
func sameEntries(sent, a, b []byte) bool {
	return len(sent) == len(a)+len(b) && bytes.Equal(sent[:len(a)], a) && bytes.Equal(sent[len(a):], b)
}

// nearbyFrame is a Nearby (see proto.Nearby) whose entries are encoded
// already: a's, then b's.
type nearbyFrame struct{ a, b []byte }

func (nearbyFrame) Op() proto.WorldOp { return proto.OpNearby }

func (m *nearbyFrame) AppendPayload(dst []byte) []byte {
	n := (len(m.a) + len(m.b)) / entrySize
	dst = binary.BigEndian.AppendUint16(append(dst, byte(proto.OpNearby)), uint16(n))
	return append(append(dst, m.a...), m.b...)
}

// radixSort sorts keys, all below 1<<bits, ascending: a least significant
// digit first radix sort on bytes, through tmp. It returns the sorted keys
// and the other buffer, for reuse.
func radixSort(keys, tmp []uint32, bits uint) (sorted, scratch []uint32) {
	if cap(tmp) < len(keys) {
		tmp = make([]uint32, len(keys), cap(keys))
	}
	tmp = tmp[:len(keys)]
	for shift := uint(0); shift < bits && len(keys) > 0; shift += 8 {
		var at [256]int32
		for _, k := range keys {
			at[k>>shift&0xff]++
		}
		if int(at[keys[0]>>shift&0xff]) == len(keys) {
			continue // one value of this digit: the order stands
		}
		sum := int32(0)
		for i, c := range at {
			at[i], sum = sum, sum+c
		}
		for _, k := range keys {
			d := k >> shift & 0xff
			tmp[at[d]] = k
			at[d]++
		}
		keys, tmp = tmp, keys
	}
	return keys, tmp
}
