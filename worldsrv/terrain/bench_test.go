package terrain

import (
	"io"
	"testing"
)

func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		Generate(0xdead0002, Arctic, DefaultSize, DefaultSize)
	}
}

// BenchmarkStep is one player's step per op on a real map, walking between spawn and
// random targets (the engine calls Step for up to 2,000 players per tick).
func BenchmarkStep(b *testing.B) {
	m := Generate(0xa1b2c3d4, Grassland, DefaultSize, DefaultSize)
	r := newRNG(1, 2)
	targets := make([]Point, 1024)
	for i := range targets {
		targets[i] = Point{X: uint16(r.intn(DefaultSize)), Y: uint16(r.intn(DefaultSize))}
	}
	start := m.Spawns()[0]
	cur, k := start, 0
	b.ReportAllocs()
	for b.Loop() {
		next, ok := m.Step(cur, targets[k])
		if !ok {
			k = (k + 1) % len(targets)
			next = start
		}
		cur = next
	}
}

func BenchmarkWritePNG(b *testing.B) {
	m := Generate(0xa1b2c3d4, Grassland, DefaultSize, DefaultSize)
	b.ReportAllocs()
	for b.Loop() {
		if err := m.WritePNG(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalBinary(b *testing.B) {
	m := Generate(0xa1b2c3d4, Grassland, DefaultSize, DefaultSize)
	for b.Loop() {
		_, _ = m.MarshalBinary()
	}
}
