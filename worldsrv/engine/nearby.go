package engine

import (
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

// tileLists holds, for one info phase, each occupied tile's list: the
// pids of the players within NearbyRadius of the tile, occupants
// included, nearest first then by pid, at most tileLimit. Every player on
// the tile shares it, less its own pid (see of), so a list is built once
// per tile, not once per player; a player's frame encodes it from each
// pid's entry, encoded once per phase. The lists of the phase before stay
// intact (each worker fills its two arenas in turn): a player's last
// Nearby is compared with its new one there, without a copy. Owned by the
// tick goroutine; the info phase's workers write only their own
// listWorker and the spans of their own share.
type tileLists struct {
	pidBits uint        // immutable after New: the bits of the largest pid
	entries [][2]uint64 // by pid: the player's entry this phase, bytes 0-7 and 6-13 as little-endian words
	// changed, by pid: the entry differs from the phase before's (the
	// player moved, or the pid is someone else's now).
	changed []bool
	spans   [][]uint16 // by the tile's index in tileIndex.tiles: its list, in a worker's arena
	workers []listWorker
	flip    int // the arena of each worker this phase fills
}

// listWorker is one share of the info phase's work and its scratch; the
// shares run in parallel.
type listWorker struct {
	arenas [2][]uint16 // the lists, side by side: this phase's and the last one's
	keys   []uint32    // a tile's sort keys
	tmp    []uint32    // the radix sort's other buffer
	// The frames its players are sent, by pointer: a value would be
	// copied to the heap on its way into the Message interface.
	pos    proto.Position
	nearby nearbyFrame
}

func newTileLists(maxPID, workers int) tileLists {
	return tileLists{pidBits: uint(bits.Len(uint(maxPID))), entries: make([][2]uint64, maxPID+1),
		changed: make([]bool, maxPID+1), workers: make([]listWorker, max(workers, 1))}
}

// begin starts a phase over players (by pid) and tiles occupied tiles:
// the entries encoded, the other arenas emptied.
func (l *tileLists) begin(players []*player, tiles int) {
	for pid, p := range players {
		if p != nil {
			e := encodeEntry(p)
			l.changed[pid] = e != l.entries[pid]
			l.entries[pid] = e
		}
	}
	l.spans = slices.Grow(l.spans[:0], tiles)[:tiles]
	l.flip ^= 1
	for i := range l.workers {
		l.workers[i].arenas[l.flip] = l.workers[i].arenas[l.flip][:0]
	}
}

// build fills the lists of the occupied tiles from lo to hi (indexes in
// ix.tiles) with w's scratch.
func (l *tileLists) build(ix *tileIndex, w *listWorker, lo, hi int) {
	for i := lo; i < hi; i++ {
		l.spans[i] = l.tile(ix, w, int(ix.tiles[i]))
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

// tile builds tile t's list. Only the players within the least radius
// that holds tileLimit of them are candidates (the tile index counts any
// square in four lookups), so a crowd costs what its list costs rather
// than everyone within NearbyRadius; their keys (distance, then pid) are
// radix sorted. Tried instead and measured in process (snapshots of
// BenchmarkInfoDense's crowd, and the benchmark itself, old and new back
// to back), each slower or no faster: a pid bitmap for each distance, drained nearest first
// (about twice the CPU: a drain reads 32 words a distance for the 30 or so
// pids each holds, a mispredicted branch a word); one pid bitmap drained
// in pid order, each pid then placed by a counter per distance (on par:
// the counters' increments, often to the same one, wait on each other);
// building a share's lists and sending its occupants' frames in one pass
// (8-15% more CPU: the frames' 7 MB a tick evict the index the lists read).
func (l *tileLists) tile(ix *tileIndex, w *listWorker, t int) []uint16 {
	x, y := t%ix.width, t/ix.width
	r, n := ix.radius(x, y)
	keys := slices.Grow(w.keys[:0], int(n))[:n]
	ix.collect(x, y, r, l.pidBits, keys)
	// The sort's last pass writes every key's pid into the arena; the list
	// keeps the first tileLimit, and the next tile's list starts after.
	arena := slices.Grow(w.arenas[l.flip], len(keys))
	off := len(arena)
	arena = arena[:off+len(keys)]
	w.tmp = radixSort(keys, w.tmp, uint32(r+1)<<l.pidBits, arena[off:], uint32(1)<<l.pidBits-1)
	w.keys = keys
	arena = arena[:off+min(len(keys), tileLimit)]
	w.arenas[l.flip] = arena
	return arena[off:len(arena):len(arena)]
}

// of is the Nearby list of the player pid, in two parts: its tile's list
// without its own pid, at most MaxNearby. The tile's occupants lead its
// list in pid order, so the player is at its rank, unless more than
// tileLimit share the tile and it ranks past them.
func (l *tileLists) of(ix *tileIndex, pid uint16) (a, b []uint16) {
	list := l.spans[ix.tileOf[pid]]
	r := int(ix.rank[pid])
	if r >= len(list) {
		return list[:proto.MaxNearby], nil
	}
	return list[:r], list[r+1:]
}

// unchanged reports whether the list a2 then b2 is the list a1 then b1
// with every entry as it was: the same pids, none of them changed.
func (l *tileLists) unchanged(a1, b1, a2, b2 []uint16) bool {
	if len(a1)+len(b1) != len(a2)+len(b2) {
		return false
	}
	if len(a1) > len(a2) {
		a1, b1, a2, b2 = a2, b2, a1, b1
	}
	k, m := len(a1), len(a2)-len(a1)
	if !slices.Equal(a1, a2[:k]) || !slices.Equal(b1[:m], a2[k:]) || !slices.Equal(b1[m:], b2) {
		return false
	}
	for _, part := range [2][]uint16{a2, b2} {
		for _, pid := range part {
			if l.changed[pid] {
				return false
			}
		}
	}
	return true
}

// nearbyFrame is a Nearby (see proto.Nearby) of the players a lists, then
// b, from their entries.
type nearbyFrame struct {
	a, b    []uint16
	entries [][2]uint64
}

func (nearbyFrame) Op() proto.WorldOp { return proto.OpNearby }

// AppendPayload writes each entry as two 8-byte stores, the second
// overlapping the first by 2 bytes; the last runs 2 bytes past the
// payload, into room it made and then cuts.
func (m *nearbyFrame) AppendPayload(dst []byte) []byte {
	n := len(m.a) + len(m.b)
	dst = binary.BigEndian.AppendUint16(append(dst, byte(proto.OpNearby)), uint16(n))
	off := len(dst)
	dst = slices.Grow(dst, entrySize*n+2)[:off+entrySize*n+2]
	b := dst[off:]
	i := 0
	for _, part := range [2][]uint16{m.a, m.b} {
		for _, pid := range part {
			e := &m.entries[pid]
			binary.LittleEndian.PutUint64(b[i:i+8], e[0])
			binary.LittleEndian.PutUint64(b[i+entrySize-8:i+entrySize], e[1])
			i += entrySize
		}
	}
	return dst[:off+entrySize*n]
}

// radixSort writes keys, all below limit (at most 1<<24), in ascending
// order into out, as long as keys, each as k&mask: a least significant
// digit first radix sort on bytes (two passes, a third when limit is
// above 1<<16; the second byte's counts summed only up to limit's)
// through tmp, whose last pass writes out. It returns tmp, for reuse;
// keys is scratch too. The digits are constant shifts: a variable shift
// made it twice as slow.
func radixSort(keys, tmp []uint32, limit uint32, out []uint16, mask uint32) (scratch []uint32) {
	tmp = slices.Grow(tmp[:0], len(keys))[:len(keys)]
	out = out[:len(keys)]
	var lo, mid [256]int32
	for _, k := range keys {
		lo[k&0xff]++
		mid[k>>8&0xff]++
	}
	offsets2(lo[:], mid[:min(max(limit-1, 1)>>8+1, 256)])
	for _, k := range keys {
		tmp[lo[k&0xff]] = k
		lo[k&0xff]++
	}
	if limit <= 1<<16 {
		for _, k := range tmp {
			out[mid[k>>8&0xff]] = uint16(k & mask)
			mid[k>>8&0xff]++
		}
		return tmp
	}
	var hi [256]int32
	for _, k := range tmp {
		keys[mid[k>>8&0xff]] = k
		mid[k>>8&0xff]++
		hi[k>>16&0xff]++
	}
	offsets(hi[:])
	for _, k := range keys {
		out[hi[k>>16&0xff]] = uint16(k & mask)
		hi[k>>16&0xff]++
	}
	return tmp
}

// offsets turns a digit's counts into the index of its first key; at
// reaches the digit's largest value.
func offsets(at []int32) {
	sum := int32(0)
	for i, c := range at {
		at[i], sum = sum, sum+c
	}
}

// offsets2 is offsets of a and of b, b no longer than a: two running
// sums side by side, each add waiting on its own sum only.
func offsets2(a, b []int32) {
	sa, sb := int32(0), int32(0)
	a = a[:max(len(a), len(b))]
	for i, c := range b {
		d := a[i]
		a[i], sa = sa, sa+d
		b[i], sb = sb, sb+c
	}
	for i := len(b); i < len(a); i++ {
		a[i], sa = sa, sa+a[i]
	}
}
