package terrain

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
)

// PNGScale is how many pixels wide and high one tile is in WritePNG's image (at least
// 2: a resource node's lower-right pixel is its shadow).
const PNGScale = 2

type rgb struct{ r, g, b int32 }

// palette is a biome's colour per tile kind; snow caps the highest mountains.
type palette struct {
	tile [NumTiles]rgb
	snow rgb
}

var (
	resourceColour = rgb{250, 190, 40}
	resourceShadow = rgb{92, 58, 20} // the lower-right pixel of a node, so it shows on sand too
	// The spawn area is a paved plaza in muted stone, a little lighter than the ground
	// with a darker kerb: it must not read as a player (the player's own marker is
	// the brightest thing on the map, web/world/static/map.js).
	spawnColour = rgb{150, 144, 128}
	spawnEdge   = rgb{104, 98, 86}
)

var palettes = [NumBiomes]palette{
	Grassland: {tile: [NumTiles]rgb{{30, 72, 124}, {66, 132, 176}, {224, 208, 152}, {122, 174, 84},
		{52, 112, 54}, {146, 152, 96}, {128, 116, 104}}, snow: rgb{184, 190, 204}},
	Arctic: {tile: [NumTiles]rgb{{30, 60, 102}, {96, 146, 178}, {196, 202, 200}, {226, 233, 241},
		{66, 98, 86}, {188, 197, 212}, {146, 152, 170}}, snow: rgb{196, 204, 220}},
	Desert: {tile: [NumTiles]rgb{{28, 82, 124}, {74, 156, 172}, {234, 206, 144}, {204, 166, 106},
		{112, 142, 68}, {182, 138, 88}, {152, 110, 80}}, snow: rgb{200, 164, 124}},
	Marshland: {tile: [NumTiles]rgb{{38, 70, 78}, {80, 122, 104}, {172, 162, 122}, {108, 134, 72},
		{58, 92, 52}, {124, 128, 88}, {112, 106, 96}}, snow: rgb{164, 160, 146}},
	Tropic: {tile: [NumTiles]rgb{{14, 88, 150}, {40, 172, 192}, {242, 228, 172}, {104, 184, 82},
		{30, 124, 54}, {124, 154, 82}, {112, 106, 96}}, snow: rgb{156, 148, 134}},
}

// The preview is a paletted image (an 8-bit palette encodes several times faster than
// RGBA and is smaller on the wire): each base colour comes in a range of shades.
const (
	waterShades, waterShadeMin, waterShadeStep = 16, 160, 4 // shade factors 160–223 (/256)
	landShades, landShadeMin, landShadeStep    = 33, 112, 8 // shade factors 112–375 (/256)
	landBases                                  = 6          // sand, land, forest, hill, mountain, snow

	waterIndex    = 0
	landIndex     = waterIndex + 2*waterShades
	resourceIndex = landIndex + landBases*landShades
	spawnIndex    = resourceIndex + 1
	spawnEdgeIdx  = resourceIndex + 2
	shadowIndex   = resourceIndex + 3
	paletteLen    = resourceIndex + 4
)

// colours is the biome's image palette, laid out as the *Index constants say.
func (p *palette) colours() color.Palette {
	out := make(color.Palette, 0, paletteLen)
	for _, t := range []Tile{DeepWater, ShallowWater} {
		for s := range int32(waterShades) {
			out = append(out, scale(p.tile[t], waterShadeMin+s*waterShadeStep).nrgba())
		}
	}
	for base := range landBases {
		c := p.snow
		if base < landBases-1 {
			c = p.tile[Sand+Tile(base)]
		}
		for s := range int32(landShades) {
			out = append(out, scale(c, landShadeMin+s*landShadeStep).nrgba())
		}
	}
	return append(out, resourceColour.nrgba(), spawnColour.nrgba(), spawnEdge.nrgba(), resourceShadow.nrgba())
}

func (c rgb) nrgba() color.NRGBA { return color.NRGBA{uint8(c.r), uint8(c.g), uint8(c.b), 255} }

// WritePNG writes a preview of the map: the biome's colours per tile, shaded relief lit
// from the north-west, water darker with depth, resource nodes as gold dots with a
// shadow and the spawn area as a bordered plaza; PNGScale pixels per tile. Integer
// arithmetic throughout.
func (m *Map) WritePNG(w io.Writer) error {
	img := image.NewPaletted(image.Rect(0, 0, m.w*PNGScale, m.h*PNGScale), palettes[m.biome].colours())
	for y := range m.h {
		row := img.Pix[y*PNGScale*img.Stride:]
		for x := range m.w {
			c := m.colourIndex(x, y)
			for k := range PNGScale {
				row[x*PNGScale+k] = c
			}
		}
		for k := 1; k < PNGScale; k++ {
			copy(img.Pix[(y*PNGScale+k)*img.Stride:][:img.Stride], row[:img.Stride])
		}
		m.shadeResources(img, y)
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(w, img); err != nil {
		return fmt.Errorf("encode map png: %w", err)
	}
	return nil
}

// shadeResources gives the resource nodes of row y a shadowed lower-right pixel.
func (m *Map) shadeResources(img *image.Paletted, y int) {
	bottom := img.Pix[((y+1)*PNGScale-1)*img.Stride:]
	for x, t := range m.tiles[y*m.w : (y+1)*m.w] {
		if t == Resource {
			bottom[(x+1)*PNGScale-1] = shadowIndex
		}
	}
}

// colourIndex is tile (x, y)'s shaded colour as a palette index.
func (m *Map) colourIndex(x, y int) uint8 {
	i := y*m.w + x
	t, h := m.tiles[i], int32(m.height[i])
	switch t {
	case Resource:
		return resourceIndex
	case Spawn:
		if m.spawnEdge(x, y) {
			return spawnEdgeIdx
		}
		return spawnIndex
	case DeepWater, ShallowWater:
		// Deeper is darker: from 62.5 % of the colour at height 0 up to 86 %.
		return uint8(waterIndex + int32(t)*waterShades + min(h>>10, waterShades-1))
	}
	base := int32(t - Sand)
	if t == Mountain && uint16(h) >= m.snowLine {
		base = landBases - 1
	}
	f := 232 + h>>11 + m.relief(x, y, t)
	s := max(0, min((f-landShadeMin+landShadeStep/2)/landShadeStep, landShades-1))
	return uint8(landIndex + base*landShades + s)
}

// relief is the brightness change of tile (x, y) lit from the north-west: slopes that
// rise toward the south-east face the light. Hills and mountains are drawn steeper.
func (m *Map) relief(x, y int, t Tile) int32 {
	nx, ny := max(x-1, 0), max(y-1, 0)
	diff := int32(m.height[y*m.w+x]) - int32(m.height[ny*m.w+nx])
	gain := int32(16)
	if t == Hill || t == Mountain {
		gain = 40
	}
	return max(-110, min(diff*gain/256, 110))
}

// spawnEdge reports whether spawn tile (x, y) borders a non-spawn tile.
func (m *Map) spawnEdge(x, y int) bool {
	for _, d := range orthogonal {
		if m.Tile(x+d.dx, y+d.dy) != Spawn {
			return true
		}
	}
	return false
}

// scale multiplies a colour by f/256, clamped to 0–255.
func scale(c rgb, f int32) rgb {
	return rgb{clampByte(c.r * f >> 8), clampByte(c.g * f >> 8), clampByte(c.b * f >> 8)}
}

func clampByte(v int32) int32 { return max(0, min(v, 255)) }
