package terrain

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParseBiome(t *testing.T) {
	cases := []struct {
		in      string
		want    Biome
		wantErr bool
	}{
		{"grassland", Grassland, false},
		{"Arctic", Arctic, false},
		{" DESERT ", Desert, false},
		{"marshland", Marshland, false},
		{"marshlands", Marshland, false},
		{"tropic", Tropic, false},
		{"0", Grassland, false},
		{"4", Tropic, false},
		{"5", 0, true},
		{"cave", 0, true},
		{"", 0, true},
		{"grass", 0, true},
	}
	for _, c := range cases {
		got, err := ParseBiome(c.in)
		if c.wantErr {
			if !errors.Is(err, ErrUnknownBiome) {
				t.Errorf("ParseBiome(%q) = %v, %v; want ErrUnknownBiome", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseBiome(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for b := range Biome(NumBiomes) {
		if got, err := ParseBiome(b.String()); err != nil || got != b {
			t.Errorf("ParseBiome(%v.String()) = %v, %v", b, got, err)
		}
	}
}

func TestBiome_JSON(t *testing.T) {
	out, err := json.Marshal(struct{ B Biome }{Arctic})
	if err != nil || string(out) != `{"B":"arctic"}` {
		t.Fatalf("marshal = %s, %v", out, err)
	}
	var in struct{ B Biome }
	if err := json.Unmarshal([]byte(`{"B":"tropic"}`), &in); err != nil || in.B != Tropic {
		t.Fatalf("unmarshal = %v, %v", in.B, err)
	}
	if _, err := json.Marshal(struct{ B Biome }{Biome(9)}); err == nil {
		t.Fatal("marshalling biome 9 succeeded")
	}
}

// TestBiomeFromSeed: the seed's low byte modulo 5, including ROWS' example zones.
func TestBiomeFromSeed(t *testing.T) {
	cases := []struct {
		seed uint64
		want Biome
	}{
		{0, Grassland}, {1, Arctic}, {2, Desert}, {3, Marshland}, {4, Tropic}, {5, Grassland},
		{0xff, Grassland}, {0x100, Grassland}, {0x104, Tropic},
		{0xA1B2C3D4, Desert}, {0xDEAD0002, Desert}, {0xCAFE0003, Marshland},
	}
	for _, c := range cases {
		if got := BiomeFromSeed(c.seed); got != c.want {
			t.Errorf("BiomeFromSeed(%#x) = %v, want %v", c.seed, got, c.want)
		}
	}
}

// TestDefaultSeed pins the documented formula (docs/world-map.md) and checks node ids
// get distinct seeds and a mix of biomes.
func TestDefaultSeed(t *testing.T) {
	if got, want := DefaultSeed(10), splitmix64(0x636f72726f73696f+10); got != want {
		t.Fatalf("DefaultSeed(10) = %#x, want splitmix64(\"corrosio\"+10) = %#x", got, want)
	}
	if got := DefaultSeed(10); got != 0xc4d7c49b32442067 {
		t.Errorf("DefaultSeed(10) = %#x, changed from 0xc4d7c49b32442067: every default world would change", got)
	}
	seen := map[uint64]uint8{}
	var biomes [NumBiomes]int
	for n := range 256 {
		s := DefaultSeed(uint8(n))
		if prev, dup := seen[s]; dup {
			t.Fatalf("nodes %d and %d share seed %#x", prev, n, s)
		}
		seen[s] = uint8(n)
		biomes[BiomeFromSeed(s)]++
	}
	for b, n := range biomes {
		if n < 20 {
			t.Errorf("only %d of 256 default seeds are %v", n, Biome(b))
		}
	}
}

func TestTile_Walkable(t *testing.T) {
	for k := range Tile(NumTiles + 1) {
		want := k != DeepWater && k != Mountain && k < NumTiles
		if k.Walkable() != want {
			t.Errorf("%v.Walkable() = %v, want %v", k, k.Walkable(), want)
		}
	}
	m := Generate(3, Grassland, 32, 32)
	for _, p := range [][2]int{{-1, 0}, {0, -1}, {32, 0}, {0, 32}} {
		if m.Walkable(p[0], p[1]) || m.Tile(p[0], p[1]) != DeepWater {
			t.Errorf("off the map %v: walkable %v, tile %v", p, m.Walkable(p[0], p[1]), m.Tile(p[0], p[1]))
		}
	}
}
