package terrain

import "crypto/sha256"

// profile shapes a biome. Height bands are per mille of all tiles, counted from the
// lowest (deep, shallow, sand) and from the highest (mountain, hill); what lies between
// is land. Moisture bands are per mille of the land tiles: the wettest become pools
// (shallow water), the next wettest forest, the driest dunes (sand).
type profile struct {
	deep, shallow, sand, hill, mountain int // per mille of all tiles, by height
	pools, forest, dunes                int // per mille of land tiles, by moisture
	// edge lowers the land toward the map's border (0 none, 256 strong): an island or
	// a coast instead of land running off the edge.
	edge int64
	// heightOctaves and moistOctaves are the noise layers; smaller cells = busier terrain.
	heightOctaves, moistOctaves []octave
}

var (
	broadHeight = []octave{{64, 16}, {32, 8}, {16, 4}, {8, 2}, {4, 1}}
	islandsHigh = []octave{{40, 16}, {20, 8}, {10, 4}, {5, 2}}
	moisture    = []octave{{32, 8}, {16, 4}, {8, 2}, {4, 1}}
)

var profiles = [NumBiomes]profile{
	Grassland: {deep: 110, shallow: 60, sand: 40, hill: 110, mountain: 40,
		pools: 10, forest: 300, edge: 96, heightOctaves: broadHeight, moistOctaves: moisture},
	Arctic: {deep: 90, shallow: 50, sand: 30, hill: 190, mountain: 140,
		forest: 120, edge: 64, heightOctaves: broadHeight, moistOctaves: moisture},
	Desert: {deep: 10, shallow: 25, sand: 180, hill: 110, mountain: 50,
		pools: 15, forest: 35, dunes: 550, edge: 0, heightOctaves: broadHeight, moistOctaves: moisture},
	Marshland: {deep: 50, shallow: 170, sand: 30, hill: 40, mountain: 10,
		pools: 260, forest: 220, edge: 32, heightOctaves: broadHeight, moistOctaves: moisture},
	Tropic: {deep: 440, shallow: 120, sand: 70, hill: 60, mountain: 25,
		forest: 480, edge: 128, heightOctaves: islandsHigh, moistOctaves: moisture},
}

// Noise salts: one per field, so fields of the same seed are independent.
const (
	saltHeight   = 0x68656967687400 // "height"
	saltMoisture = 0x6d6f6973740000 // "moist"
	saltSpawn    = 0x737061776e0000 // "spawn"
	saltResource = 0x7265736f757263 // "resourc"
)

// Generate builds the map of (seed, biome) with w×h tiles. The same arguments give the
// same map, bit for bit, everywhere. w and h are clamped to [MinSize, MaxSize] (use
// CheckSize to refuse instead); a biome out of range is treated as Grassland.
func Generate(seed uint64, b Biome, w, h int) *Map {
	w, h = clamp(w, MinSize, MaxSize), clamp(h, MinSize, MaxSize)
	if !b.Valid() {
		b = Grassland
	}
	p := &profiles[b]
	m := &Map{seed: seed, biome: b, w: w, h: h, tiles: make([]Tile, w*h), height: make([]uint16, w*h)}
	m.buildHeight(p)
	m.classifyHeight(p)
	m.classifyMoisture(p)
	region := m.largestRegion()
	m.placeSpawn(region)
	m.placeResources(region)
	m.hash = sha256.Sum256(m.marshal())
	return m
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

// buildHeight fills the heightmap: fractal noise, lowered toward the border by p.edge,
// stretched to use the whole 0–65535 range.
func (m *Map) buildHeight(p *profile) {
	n := newNoise(m.seed, saltHeight, p.heightOctaves)
	raw := make([]int64, len(m.height))
	lo, hi := int64(1)<<62, int64(-1)<<62
	ramp := int64(min(m.w, m.h) / 3)
	for y := range m.h {
		for x := range m.w {
			v := n.at(x, y)
			d := int64(min(x, y, m.w-1-x, m.h-1-y))
			if d < ramp {
				k := (ramp - d) * fracOne / ramp // 0 inland … 1 at the border
				v -= p.edge * (k * k >> 16) >> 8
			}
			raw[y*m.w+x] = v
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	span := max(hi-lo, 1)
	for i, v := range raw {
		m.height[i] = uint16((v - lo) * 65535 / span)
	}
}

// perMille is n·pm/1000 without overflowing a 32-bit int.
func perMille(n, pm int) int { return int(int64(n) * int64(pm) / 1000) }

// histBins is the resolution of the percentile cut-offs: heights and moistures are
// binned by their top 12 bits.
const histBins = 4096

// cutoff is the smallest bin c such that the bins below c hold at least want entries.
func cutoff(hist *[histBins]int, want int) int {
	sum := 0
	for c := range histBins {
		if sum >= want {
			return c
		}
		sum += hist[c]
	}
	return histBins
}

// classifyHeight turns heights into water, sand, land, hill and mountain by the
// profile's per-mille bands.
func (m *Map) classifyHeight(p *profile) {
	var hist [histBins]int
	for _, v := range m.height {
		hist[v>>4]++
	}
	n := len(m.height)
	deep := cutoff(&hist, perMille(n, p.deep))
	shallow := cutoff(&hist, perMille(n, p.deep+p.shallow))
	sand := cutoff(&hist, perMille(n, p.deep+p.shallow+p.sand))
	hill := cutoff(&hist, perMille(n, 1000-p.hill-p.mountain))
	mountain := cutoff(&hist, perMille(n, 1000-p.mountain))
	m.snowLine = uint16(min(mountain<<4+(histBins-mountain)<<2, 65535))
	for i, v := range m.height {
		b := int(v >> 4)
		switch {
		case b < deep:
			m.tiles[i] = DeepWater
		case b < shallow:
			m.tiles[i] = ShallowWater
		case b < sand:
			m.tiles[i] = Sand
		case b >= mountain:
			m.tiles[i] = Mountain
		case b >= hill:
			m.tiles[i] = Hill
		default:
			m.tiles[i] = Land
		}
	}
}

// classifyMoisture turns land into pools, forest and dunes by a second noise field.
func (m *Map) classifyMoisture(p *profile) {
	n := newNoise(m.seed, saltMoisture, p.moistOctaves)
	moist := make([]uint16, len(m.tiles))
	var hist [histBins]int
	land := 0
	for y := range m.h {
		for x := range m.w {
			i := y*m.w + x
			if m.tiles[i] != Land {
				continue
			}
			moist[i] = uint16(n.at(x, y))
			hist[moist[i]>>4]++
			land++
		}
	}
	dunes := cutoff(&hist, perMille(land, p.dunes))
	forest := cutoff(&hist, perMille(land, 1000-p.pools-p.forest))
	pools := cutoff(&hist, perMille(land, 1000-p.pools))
	for i, t := range m.tiles {
		if t != Land {
			continue
		}
		b := int(moist[i] >> 4)
		switch {
		case p.pools > 0 && b >= pools:
			m.tiles[i] = ShallowWater
		case p.forest > 0 && b >= forest:
			m.tiles[i] = Forest
		case b < dunes:
			m.tiles[i] = Sand
		}
	}
}
