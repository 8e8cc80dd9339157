// Package terrain generates a world's tile map from its seed and biome, deterministically
// and bit-identically on every platform (integer arithmetic only), and answers the
// questions the engine asks of it: which tiles are walkable, where players spawn, and
// which tile is the next step toward a target. It also encodes the map as map.bin and
// renders the map.png preview. It imports nothing of the world's other packages.
package terrain

import (
	"errors"
	"fmt"
)

// DefaultSize is the width and height of a world's map unless configured otherwise.
const DefaultSize = 256

// MinSize and MaxSize bound a map's width and height; Generate clamps to them and
// CheckSize reports a size outside them.
const (
	MinSize = 16
	MaxSize = 4096
)

// ErrBadSize is returned by CheckSize for a width or height outside [MinSize, MaxSize].
var ErrBadSize = errors.New("map size out of range")

// CheckSize reports whether w×h is a size Generate accepts as is.
func CheckSize(w, h int) error {
	if w < MinSize || w > MaxSize || h < MinSize || h > MaxSize {
		return fmt.Errorf("map %d×%d: %w (each side %d–%d)", w, h, ErrBadSize, MinSize, MaxSize)
	}
	return nil
}

// Tile is one map cell's kind; the numbers are the wire values of map.bin.
type Tile uint8

// The tiles of world-client.md "The map". DeepWater and Mountain are not walkable.
const (
	DeepWater    Tile = 0
	ShallowWater Tile = 1
	Sand         Tile = 2
	Land         Tile = 3
	Forest       Tile = 4
	Hill         Tile = 5
	Mountain     Tile = 6
	Resource     Tile = 7
	Spawn        Tile = 8

	// NumTiles is the number of tile kinds.
	NumTiles = 9
)

var tileNames = [NumTiles]string{
	"deep water", "shallow water", "sand", "land", "forest", "hill", "mountain", "resource", "spawn",
}

// String names the tile ("deep water", "forest", …).
func (t Tile) String() string {
	if int(t) < NumTiles {
		return tileNames[t]
	}
	return fmt.Sprintf("tile(%d)", uint8(t))
}

// Walkable reports whether a player may stand on a tile of this kind.
func (t Tile) Walkable() bool {
	return t < NumTiles && t != DeepWater && t != Mountain
}

// Point is a tile position; X grows to the east, Y to the south, (0,0) is the top-left.
type Point struct{ X, Y uint16 }

// Map is a generated world map. It is immutable after Generate, so any number of
// goroutines may use it at once.
type Map struct {
	seed   uint64   // immutable after Generate
	biome  Biome    // immutable after Generate
	w, h   int      // immutable after Generate
	tiles  []Tile   // immutable after Generate; row-major, w×h
	height []uint16 // immutable after Generate; the heightmap the tiles came from (for WritePNG)
	spawns []Point  // immutable after Generate; row-major order
	hash   [32]byte // immutable after Generate; sha256 of map.bin
	// snowLine is the height above which mountains are drawn snow-capped; immutable after Generate.
	snowLine uint16
}

// Seed is the seed the map was generated from.
func (m *Map) Seed() uint64 { return m.seed }

// Biome is the biome the map was generated for.
func (m *Map) Biome() Biome { return m.biome }

// Width is the map's width in tiles.
func (m *Map) Width() int { return m.w }

// Height is the map's height in tiles.
func (m *Map) Height() int { return m.h }

// In reports whether (x, y) lies on the map.
func (m *Map) In(x, y int) bool { return x >= 0 && y >= 0 && x < m.w && y < m.h }

// Tile is the tile at (x, y); outside the map it is DeepWater.
func (m *Map) Tile(x, y int) Tile {
	if !m.In(x, y) {
		return DeepWater
	}
	return m.tiles[y*m.w+x]
}

// Walkable reports whether a player may stand at (x, y); never outside the map.
func (m *Map) Walkable(x, y int) bool { return m.Tile(x, y).Walkable() }

// Spawns lists the spawn tiles in row order (a copy; the caller may keep it). They are
// walkable and connected to each other, and there are at least MinSpawns of them.
func (m *Map) Spawns() []Point {
	return append([]Point(nil), m.spawns...)
}

// Counts is how many tiles of each kind the map has, indexed by Tile.
func (m *Map) Counts() [NumTiles]int {
	var c [NumTiles]int
	for _, t := range m.tiles {
		c[t]++
	}
	return c
}
