package terrain

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
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
