package terrain

import (
	"errors"
	"fmt"
	"strings"
)

// Biome selects how a map is shaped and coloured; the numbers are the wire values of
// MapInfo and ROWS' biome table.
type Biome uint8

// The biomes of world-client.md "The map".
const (
	Grassland Biome = 0
	Arctic    Biome = 1
	Desert    Biome = 2
	Marshland Biome = 3
	Tropic    Biome = 4

	// NumBiomes is the number of biomes.
	NumBiomes = 5
)

var biomeNames = [NumBiomes]string{"grassland", "arctic", "desert", "marshland", "tropic"}

// ErrUnknownBiome is returned by ParseBiome for a name that is no biome.
var ErrUnknownBiome = errors.New("unknown biome")

// String is the biome's name as --biome takes it ("grassland", …).
func (b Biome) String() string {
	if b < NumBiomes {
		return biomeNames[b]
	}
	return fmt.Sprintf("biome(%d)", uint8(b))
}

// Valid reports whether b is one of the five biomes.
func (b Biome) Valid() bool { return b < NumBiomes }

// MarshalText makes a biome its name in JSON (/status).
func (b Biome) MarshalText() ([]byte, error) {
	if !b.Valid() {
		return nil, fmt.Errorf("marshal biome %d: %w", uint8(b), ErrUnknownBiome)
	}
	return []byte(b.String()), nil
}

// UnmarshalText is ParseBiome for encoding packages.
func (b *Biome) UnmarshalText(text []byte) error {
	v, err := ParseBiome(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// ParseBiome reads a biome's name (case-insensitive, surrounding space ignored) or its
// number "0"–"4". ROWS' zone name "marshlands" is accepted for marshland.
func ParseBiome(s string) (Biome, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "marshlands" {
		return Marshland, nil
	}
	for i, n := range biomeNames {
		if name == n || (len(name) == 1 && name[0] == byte('0'+i)) {
			return Biome(i), nil
		}
	}
	return 0, fmt.Errorf("parse biome %q: %w (want grassland, arctic, desert, marshland or tropic)", s, ErrUnknownBiome)
}

// BiomeFromSeed is the biome a seed gets when none is configured: the seed's low byte
// modulo 5 (ROWS: "seed bits [0:7]").
func BiomeFromSeed(seed uint64) Biome {
	return Biome(uint8(seed) % NumBiomes)
}

// defaultSeedBase is "corrosio" in ASCII; DefaultSeed mixes the node id into it.
const defaultSeedBase uint64 = 0x636f72726f73696f

// DefaultSeed is a world's seed when --seed is not given: splitmix64 of
// 0x636f72726f73696f ("corrosio") + node id. It is fixed forever, so a world restarted
// or replaced with the same node id gets the same map; different node ids get
// different maps (and, through BiomeFromSeed, a mix of biomes).
func DefaultSeed(nodeID uint8) uint64 {
	return splitmix64(defaultSeedBase + uint64(nodeID))
}
