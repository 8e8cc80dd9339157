package terrain

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// outputDir is $TEST_OUTPUT_DIR/terrain when set (kept for a person to look at),
// else a temporary folder.
func outputDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("TEST_OUTPUT_DIR")
	if base == "" {
		return t.TempDir()
	}
	dir := filepath.Join(base, "terrain")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("make output dir: %v", err)
	}
	return dir
}

// TestWritePNG_Previews writes a preview per biome for a few seeds, and checks each is
// a valid PNG of the map's size times PNGScale.
func TestWritePNG_Previews(t *testing.T) {
	dir := outputDir(t)
	for _, seed := range []uint64{1, 0xA1B2C3D4, DefaultSeed(10)} {
		for b := range Biome(NumBiomes) {
			m := Generate(seed, b, DefaultSize, DefaultSize)
			var buf bytes.Buffer
			if err := m.WritePNG(&buf); err != nil {
				t.Fatalf("WritePNG(%#x, %v): %v", seed, b, err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("decode png of (%#x, %v): %v", seed, b, err)
			}
			if cfg.Width != m.Width()*PNGScale || cfg.Height != m.Height()*PNGScale {
				t.Errorf("png of (%#x, %v) is %d×%d, want %d×%d", seed, b,
					cfg.Width, cfg.Height, m.Width()*PNGScale, m.Height()*PNGScale)
			}
			checkMarkers(t, m, buf.Bytes())
			name := filepath.Join(dir, fmt.Sprintf("map-%x-%v.png", seed, b))
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatalf("write %s: %v", name, err)
			}
		}
	}
	t.Logf("previews in %s", dir)
}

// checkMarkers decodes the preview and checks the spawn area and resource nodes are
// drawn in their own colours, which no terrain shade shares.
func checkMarkers(t *testing.T, m *Map, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	at := func(x, y int) color.NRGBA {
		return color.NRGBAModel.Convert(img.At(x*PNGScale, y*PNGScale)).(color.NRGBA)
	}
	terrain := map[color.NRGBA]bool{}
	markers := map[color.NRGBA]bool{resourceColour.nrgba(): true, spawnColour.nrgba(): true, spawnEdge.nrgba(): true, resourceShadow.nrgba(): true}
	resources := 0
	for y := range m.h {
		for x := range m.w {
			c := at(x, y)
			switch m.Tile(x, y) {
			case Resource:
				resources++
				if c != resourceColour.nrgba() {
					t.Fatalf("resource at (%d,%d) drawn %v", x, y, c)
				}
			case Spawn:
				if c != spawnColour.nrgba() && c != spawnEdge.nrgba() {
					t.Fatalf("spawn at (%d,%d) drawn %v", x, y, c)
				}
			default:
				terrain[c] = true
			}
		}
	}
	for c := range markers {
		if terrain[c] {
			t.Errorf("terrain drawn in marker colour %v", c)
		}
	}
	if resources == 0 {
		t.Error("no resource nodes to see")
	}
}

// The spawn plaza is drawn in muted stone: not near white and not a strong colour, so the
// player's own marker (bright yellow, web/world/static/map.js) is what catches the eye
// where a new player stands (the plaza was white with a red kerb and read as the player).
func TestPNG_SpawnPlazaIsMuted(t *testing.T) {
	luminance := func(c rgb) float64 { // WCAG relative luminance
		lin := func(v int32) float64 {
			f := float64(v) / 255
			if f <= 0.04045 {
				return f / 12.92
			}
			return math.Pow((f+0.055)/1.055, 2.4)
		}
		return 0.2126*lin(c.r) + 0.7152*lin(c.g) + 0.0722*lin(c.b)
	}
	self := rgb{0xff, 0xd3, 0x4d}
	for name, c := range map[string]rgb{"plaza": spawnColour, "kerb": spawnEdge} {
		if l := luminance(c); l > 0.5 {
			t.Errorf("spawn %s %v: luminance %.2f, want ≤ 0.5 (not near white)", name, c, l)
		}
		if chroma := max(c.r, c.g, c.b) - min(c.r, c.g, c.b); chroma > 40 {
			t.Errorf("spawn %s %v: chroma %d, want ≤ 40 (a muted colour)", name, c, chroma)
		}
		if ratio := (luminance(self) + 0.05) / (luminance(c) + 0.05); ratio < 2 {
			t.Errorf("spawn %s %v: the player's marker is only %.2f× as bright, want ≥ 2", name, c, ratio)
		}
	}
}
