package engine

import (
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/worldsrv/account"
	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// benchWorld is an ether-off engine on the default 256×256 map with n
// players placed directly (no account checks), each walking somewhere
// and drained (and its chunk recycled) every tick, as a network writer
// would.
func benchWorld(b *testing.B, n int) (*Engine, []*Client) {
	m := terrain.Generate(7, terrain.Grassland, terrain.DefaultSize, terrain.DefaultSize)
	e, err := New(Config{NodeID: 10, EtherOff: true, MaxPlayers: n + 1, OutQueue: 4},
		// The players are placed directly, so no account check ever runs:
		// a nil store stands in for the accounts.
		Deps{Map: m, Accounts: (*account.Store)(nil), Logger: testLogger(b)})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Unix(0, 0)
	var cs []*Client
	for i := range n {
		c, err := e.Attach(&memConn{addr: "10.0." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250)})
		if err != nil {
			b.Fatal(err)
		}
		e.admit(now)
		e.accept(c, account.Account{User37: uint64(1000 + i), Name: "p" + strconv.Itoa(i)}, e.allocPID(), nil)
		cs = append(cs, c)
	}
	return e, cs
}

// BenchmarkTick_2000Crowd is one tick of 2000 players walking out of the
// spawn area, where most of them start within 15 tiles of 255 others (a
// full Nearby for almost everyone, every tick): the worst case.
func BenchmarkTick_2000Crowd(b *testing.B) { benchTicks(b, false) }

// BenchmarkTick_2000Spread is the same with the players spread over the
// map's walkable tiles (a world some minutes after a login rush).
func BenchmarkTick_2000Spread(b *testing.B) { benchTicks(b, true) }

// BenchmarkTick_2000Wander is what worldsrv/bench's bots do: 2,000
// players start on the spawn tiles and each walks to a random tile within
// 20 tiles of where it is every 5 to 10 ticks, so the crowd around the
// spawn area thins out slowly (the ticks measured are the first ones).
func BenchmarkTick_2000Wander(b *testing.B) {
	e, cs := benchWorld(b, 2000)
	rng := rand.New(rand.NewPCG(3, 4))
	next := make([]int, len(cs))
	now := time.Unix(0, 0)
	cpu0 := cpuTime(b)
	for i := 0; b.Loop(); i++ {
		for j, c := range cs {
			if i >= next[j] {
				next[j] = i + 5 + rng.IntN(6)
				p := c.player.pos
				c.lastHeard = now
				c.in <- &proto.Walk{X: wander(rng, p.X, e.world.Width()), Y: wander(rng, p.Y, e.world.Height())}
			}
		}
		now = now.Add(600 * time.Millisecond)
		e.Tick(now)
		for _, c := range cs {
			select {
			case chunk := <-c.out:
				c.Recycle(chunk) // as the network writer does
			default:
			}
		}
	}
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	st := e.Stats()
	b.ReportMetric(float64(st.Tick.P50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(st.Tick.P99.Microseconds()), "p99-µs")
}

// wander is a coordinate within 20 tiles of v on a side of size tiles.
func wander(rng *rand.Rand, v uint16, size int) uint16 {
	return uint16(min(max(int(v)+rng.IntN(41)-20, 0), size-1))
}

// BenchmarkTick_Empty is the baseline: a tick with nobody online.
func BenchmarkTick_Empty(b *testing.B) {
	e, _ := benchWorld(b, 0)
	now := time.Unix(0, 0)
	for b.Loop() {
		now = now.Add(600 * time.Millisecond)
		e.Tick(now)
	}
}

func benchTicks(b *testing.B, spread bool) {
	e, cs := benchWorld(b, 2000)
	if spread {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, c := range cs {
			for {
				x, y := rng.IntN(e.world.Width()), rng.IntN(e.world.Height())
				if e.world.Walkable(x, y) {
					c.player.pos = terrain.Point{X: uint16(x), Y: uint16(y)}
					break
				}
			}
		}
	}
	now := time.Unix(0, 0)
	cpu0 := cpuTime(b)
	for i := 0; b.Loop(); i++ {
		for j, c := range cs {
			if i%8 == 0 {
				c.lastHeard = now
				c.in <- &proto.Walk{X: uint16((j*37 + i) % 256), Y: uint16((j*91 + i) % 256)}
			}
		}
		now = now.Add(600 * time.Millisecond)
		e.Tick(now)
		for _, c := range cs {
			select {
			case chunk := <-c.out:
				c.Recycle(chunk) // as the network writer does
			default:
			}
		}
	}
	// The process's CPU time per tick, less at the mercy of a shared
	// machine than the wall-clock percentiles (the bench's own loop is in it).
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	st := e.Stats()
	b.ReportMetric(float64(st.Tick.P50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(st.Tick.P99.Microseconds()), "p99-µs")
	if st.Players != 2000 {
		b.Fatalf("%d players left", st.Players)
	}
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
