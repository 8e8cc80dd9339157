package engine

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// benchWorld is an ether-off engine on the default 256×256 map with n
// players placed directly (no account checks), each walking somewhere
// and drained (and its chunk recycled) every tick, as a network writer
// would.
func benchWorld(b *testing.B, n int) (*Engine, []*Client) {
	m := terrain.Generate(7, terrain.Grassland, terrain.DefaultSize, terrain.DefaultSize)
	return benchWorldOn(b, m, n, func(i int) (uint64, string) { return uint64(1000 + i), "p" + strconv.Itoa(i) })
}

// benchWorldOn is benchWorld on m with player i's account from acc.
func benchWorldOn(b *testing.B, m *terrain.Map, n int, acc func(i int) (uint64, string)) (*Engine, []*Client) {
	e, err := New(Config{NodeID: 10, EtherOff: true, MaxPlayers: n + 1, OutQueue: 4},
		// The players are placed directly, so no account check ever runs:
		// a nil store stands in for the accounts.
		Deps{Map: m, Accounts: noAccounts{}, Logger: testLogger(b)})
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
		user37, name := acc(i)
		e.accept(c, Account{User37: user37, Name: name}, e.allocPID(), nil)
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
		recycle(cs)
	}
	reportTicks(b, e, cpu0)
}

// recycle takes each client's queued chunk back, as the network writer does.
func recycle(cs []*Client) {
	for _, c := range cs {
		select {
		case chunk := <-c.out:
			c.Recycle(chunk)
		default:
		}
	}
}

// reportTicks reports the process's CPU time per tick since cpu0 (less at
// the mercy of a shared machine than the wall-clock percentiles; the
// bench's own loop is in it) and the engine's tick p50 and p99.
func reportTicks(b *testing.B, e *Engine, cpu0 time.Duration) *Stats {
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	st := e.Stats()
	b.ReportMetric(float64(st.Tick.P50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(st.Tick.P99.Microseconds()), "p99-µs")
	return &st
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
		recycle(cs)
	}
	st := reportTicks(b, e, cpu0)
	if st.Players != 2000 {
		b.Fatalf("%d players left", st.Players)
	}
}

// The shape of worldsrv/bench's measured window (see BenchmarkInfo).
const (
	swarmBots    = 2000 // bots logged in
	swarmWarmup  = 17   // ticks walked before the window
	swarmWindow  = 100  // ticks measured: the stats window
	swarmReach   = 20   // a walk's target is within this many tiles
	denseReach   = 12   // … in worldsrv/bench's dense crowd
	swarmEvery   = 5    // ticks between a bot's walks: 3 s …
	swarmJitter  = 6    // … plus up to 3 s more (0 to 5 ticks)
	swarmNodeID  = 10   // the bench's world: its default seed and biome
	swarmOutQ    = 4    // chunks a client may have queued (drained each tick)
	swarmSeedRNG = 2    // the walkers' random stream
)

// swarmWorld is worldsrv/bench's world 10 with its 2,000 bots, in
// process: the default map of node 10, players "load0" to "load1999"
// logged in on the spawn tiles their accounts give them (no save), each
// walking as worldsrv/bot/swarm's walkers do.
type swarmWorld struct {
	e     *Engine
	cs    []*Client
	rng   *rand.Rand
	next  []int // tick of each bot's next walk
	i     int   // ticks run
	now   time.Time
	reach int // a walk's target is within this many tiles
}

func newSwarmWorld(b *testing.B) *swarmWorld {
	seed := terrain.DefaultSeed(swarmNodeID)
	m := swarmMap(seed)
	e, cs := benchWorldOn(b, m, swarmBots, func(i int) (uint64, string) {
		name := "load" + strconv.Itoa(i)
		user37, err := proto.EncodeName(name)
		if err != nil {
			b.Fatal(err)
		}
		return user37, name
	})
	return &swarmWorld{e: e, cs: cs, rng: rand.New(rand.NewPCG(swarmSeedRNG, 0)),
		next: make([]int, len(cs)), now: time.Unix(0, 0), reach: swarmReach}
}

// swarmMap is node 10's default map, generated once.
var swarmMap = func() func(seed uint64) *terrain.Map {
	var m *terrain.Map
	return func(seed uint64) *terrain.Map {
		if m == nil {
			m = terrain.Generate(seed, terrain.BiomeFromSeed(seed), terrain.DefaultSize, terrain.DefaultSize)
		}
		return m
	}
}()

// run runs n ticks: the bots due send a Walk first, and every chunk is
// drained (and recycled) after the tick, as the network writers do.
func (s *swarmWorld) run(n int) {
	for range n {
		for j, c := range s.cs {
			if s.i < s.next[j] {
				continue
			}
			s.next[j] = s.i + swarmEvery + s.rng.IntN(swarmJitter)
			p := c.player.pos
			c.lastHeard = s.now
			c.in <- &proto.Walk{X: reach(s.rng, p.X, s.reach, s.e.world.Width()),
				Y: reach(s.rng, p.Y, s.reach, s.e.world.Height())}
		}
		s.now = s.now.Add(600 * time.Millisecond)
		s.e.Tick(s.now)
		s.i++
		for _, c := range s.cs {
			select {
			case chunk := <-c.out:
				c.Recycle(chunk)
			default:
			}
		}
	}
}

// reach is a coordinate within r tiles of v on a side of size.
func reach(rng *rand.Rand, v uint16, r, size int) uint16 {
	return uint16(min(max(int(v)+rng.IntN(2*r+1)-r, 0), size-1))
}

// BenchmarkInfo is worldsrv/bench's measured window in process: the 2,000
// bots start walking together on the spawn tiles, walk swarmWarmup ticks,
// and each op is the swarmWindow ticks that follow (the bench's /status
// window). It reports the info phase's and the whole tick's p50/p99 over
// the window, and the process's CPU time per tick.
func BenchmarkInfo(b *testing.B) { benchInfo(b, infoWorkers(), swarmReach) }

// BenchmarkInfoOneWorker is BenchmarkInfo with the info phase on the tick
// goroutine alone, to weigh its parallel shares.
func BenchmarkInfoOneWorker(b *testing.B) { benchInfo(b, 1, swarmReach) }

// BenchmarkInfoDense is BenchmarkInfo in worldsrv/bench's dense crowd:
// walks within 12 tiles, so the crowd stays around the spawn area.
func BenchmarkInfoDense(b *testing.B) { benchInfo(b, infoWorkers(), denseReach) }

func benchInfo(b *testing.B, workers, walkReach int) {
	var st Stats
	var cpu time.Duration
	for range b.N {
		b.StopTimer()
		s := newSwarmWorld(b)
		s.reach = walkReach
		s.e.lists = newTileLists(s.e.cfg.MaxPlayers, workers)
		s.run(swarmWarmup)
		b.StartTimer()
		cpu0 := cpuTime(b)
		s.run(swarmWindow)
		cpu += cpuTime(b) - cpu0
		st = s.e.Stats()
		if st.Players != swarmBots {
			b.Fatalf("%d players left", st.Players)
		}
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*swarmWindow), "cpu-µs/tick")
	b.ReportMetric(float64(st.Phases[phaseInfo].P50.Microseconds()), "info-p50-µs")
	b.ReportMetric(float64(st.Phases[phaseInfo].P99.Microseconds()), "info-p99-µs")
	b.ReportMetric(float64(st.Tick.P50.Microseconds()), "tick-p50-µs")
	b.ReportMetric(float64(st.Tick.P99.Microseconds()), "tick-p99-µs")
}

// BenchmarkInfoLists is the info phase's lists alone, on one worker: each
// op builds every occupied tile's list for the same moment of
// BenchmarkInfo's window (its 50th tick), with the process's CPU time per
// op beside the wall time (the lists are CPU-bound; the machine may not be
// quiet).
func BenchmarkInfoLists(b *testing.B) {
	s := newSwarmWorld(b)
	s.run(swarmWarmup + swarmWindow/2)
	e := s.e
	cpu0 := cpuTime(b)
	for b.Loop() {
		e.tiles.build(e.players)
		e.lists.begin(e.players, len(e.tiles.tiles))
		e.lists.build(&e.tiles, &e.lists.workers[0], 0, len(e.tiles.tiles))
	}
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(len(e.tiles.tiles)), "tiles")
}
