package terrain

// All generation arithmetic is on integers: the same inputs give the same bits on every
// architecture and Go version. Heights and noise are 16-bit fixed point (0–65535).

// splitmix64 is Steele, Lea and Flood's SplitMix64 finaliser over x + the golden gamma.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// hash3 mixes a seed, a salt naming the purpose, and a lattice position into 64 bits.
func hash3(seed, salt uint64, x, y int) uint64 {
	h := splitmix64(seed ^ salt*0xd6e8feb86659fd93)
	h = splitmix64(h ^ uint64(uint32(int32(x))))
	return splitmix64(h ^ uint64(uint32(int32(y)))<<32)
}

// rng is a seeded splitmix64 stream for placement decisions.
type rng struct{ state uint64 }

func newRNG(seed, salt uint64) *rng { return &rng{state: splitmix64(seed ^ salt*0x9e3779b97f4a7c15)} }

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	return splitmix64(r.state)
}

// intn is a number in [0, n) for n > 0 (the tiny modulo bias does not matter here, and
// is the same everywhere).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// fracOne is 1.0 in the 16-bit fixed point of noise fractions.
const fracOne = 1 << 16

// smooth is the smoothstep 3t²−2t³ of a fraction t in [0, fracOne).
func smooth(t int64) int64 {
	return t * t * (3*fracOne - 2*t) >> 32
}

// octave is one layer of value noise: lattice cells of cell tiles, weighted by weight.
type octave struct {
	cell   int
	weight int64
}

// noiseLayers is fractal value noise: the octaves of a field, summed by weight.
type noiseLayers struct {
	seed, salt uint64
	octaves    []octave
	total      int64 // sum of the weights
}

func newNoise(seed, salt uint64, octaves []octave) noiseLayers {
	n := noiseLayers{seed: seed, salt: salt, octaves: octaves}
	for _, o := range octaves {
		n.total += o.weight
	}
	return n
}

// at is the field's value at (x, y), in 0–65535.
func (n noiseLayers) at(x, y int) int64 {
	var sum int64
	for i, o := range n.octaves {
		sum += o.weight * valueNoise(n.seed, n.salt+uint64(i)*0x1000193, x, y, o.cell)
	}
	return sum / n.total
}

// valueNoise is smoothly interpolated lattice noise in 0–65535 for x, y ≥ 0.
func valueNoise(seed, salt uint64, x, y, cell int) int64 {
	cx, cy := x/cell, y/cell
	fx := smooth(int64(x%cell) * fracOne / int64(cell))
	fy := smooth(int64(y%cell) * fracOne / int64(cell))
	v00 := lattice(seed, salt, cx, cy)
	v10 := lattice(seed, salt, cx+1, cy)
	v01 := lattice(seed, salt, cx, cy+1)
	v11 := lattice(seed, salt, cx+1, cy+1)
	top := v00 + (v10-v00)*fx>>16
	bottom := v01 + (v11-v01)*fx>>16
	return top + (bottom-top)*fy>>16
}

func lattice(seed, salt uint64, x, y int) int64 {
	return int64(hash3(seed, salt, x, y) >> 48)
}
