package bench

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/crypto/argon2"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/account"
	"github.com/corrosion/corrosion/worldsrv/bot/swarm"
	"github.com/corrosion/corrosion/worldsrv/bot/worldtest"
	"github.com/corrosion/corrosion/worldsrv/httpapi"
)

// The scenario's sizes and windows. The whole of it runs in six to eight
// minutes on a quiet two-core machine (mostly the two rounds of 2,000
// logins and the two 60 s windows).
const (
	players     = 2000             // bots on world 10 for the tick, RSS and login figures
	idleTicks   = 20               // the empty world's window (ticks since start)
	warmupTicks = 17               // about 10 s after the last login, before the measured window
	window      = 100              // measured ticks (60 s): exactly /status's window
	friendsEach = 3                // each bot adds the next 3 bots
	loadPMRate  = 50.0             // PMs per second among the 2,000 bots
	pmBots      = 20               // bots for the cross-world PM figure (10 per world)
	pmRate      = 20.0             // PMs per second among them
	pmDuration  = 10 * time.Second // the PM run
	natsTrips   = 2000             // raw NATS request-replies for the PM baseline
	// loginsInFlight: each login waits three or four ticks for the sidecar,
	// so the rate is about loginsInFlight / 2.4 s until hashing bounds it.
	// The reconnect storm (the 2,000 existing accounts logging in again, as
	// after a world restart) has as many in flight.
	loginsInFlight = 100
	// The dense crowd, logged in by the reconnect storm: each bot walks to
	// a tile within denseReach tiles every 3–6 s from the spawn area (so
	// the crowd stays dense), befriends its neighbour (the next bot) and
	// messages it (denseFriends; PMs to friends at loadPMRate).
	denseReach   = 12
	denseFriends = 1
	// loginBound bounds the 2,000 logins: about a minute on a quiet machine,
	// minutes when the two cores are shared with other work.
	loginBound = 8 * time.Minute
	// friendsBound bounds the wait, before PMs start, until every bot sees
	// its friends online (the 2,000 bots' 6,000 FriendAdd answers reach
	// the world at 100 sidecar events per tick: about 40 s).
	friendsBound = 3 * time.Minute
	// settleTicks passes between the 2,000 logging out and logging in again.
	settleTicks = 10
	hashFor     = 700 * time.Millisecond // one argon2id baseline run
	hashRuns    = 3                      // runs; the median is reported
	rssSamples  = 5                      // VmRSS reads through the measured window; the median is reported
)

// tickFigures is one /status tick window.
type tickFigures struct {
	tick    httpapi.TickStatus
	window  int
	players int
}

// latency is a p50/p99 pair in microseconds, with its sample count.
type latency struct {
	p50, p99 float64
	n        int
}

// results is everything one scenario run measured.
type results struct {
	idle, busy       tickFigures
	idleRSS, busyRSS float64 // MB
	natsRT, pm       latency
	pmOffline        int          // PMs answered "That player is currently offline."
	pmNotOnline      int          // friend rows the PM bots never saw online
	load             swarm.Report // the 2,000-bot run (new accounts)
	dense            tickFigures  // the dense crowd's window
	storm            swarm.Report // the 2,000 existing accounts again: the reconnect storm and the dense crowd
	hashRate         float64      // argon2id hashes per second, both cores
	stormHashRate    float64      // the same, measured right before the storm
	// how long each part took, in seconds (reported as its ns/op)
	idleSecs, pmSecs, natsSecs, hashSecs, stormHashSecs float64
	windowSecs, denseSecs                               float64 // the measured tick windows
}

var (
	scenarioOnce sync.Once
	scenarioOK   bool
	scenarioRes  results
)

// scenario runs the world scenario once for all the benchmarks of the
// package (the first caller's b owns the processes) and returns its
// figures.
func scenario(b *testing.B) *results {
	b.Helper()
	scenarioOnce.Do(func() {
		scenarioRes = runScenario(b)
		scenarioOK = true
	})
	if !scenarioOK {
		b.Fatal("the world scenario failed in an earlier benchmark (see its log)")
	}
	return &scenarioRes
}

// runScenario: one NATS, one database, worlds 10 and 11 each spawning its
// sidecar; the idle world; PMs across the two worlds beside raw NATS
// request-replies; the argon2id rate; 2,000 bots on world 10 walking and
// sending PMs over a measured window; then existing accounts again.
func runScenario(b *testing.B) results {
	var r results
	cl := worldtest.NewCluster(b)
	flags := []string{"--max-conns-per-ip", "10000", "--log-level", "warn"}
	w10, w11 := cl.Spawn(b, 10, flags...), cl.Spawn(b, 11, flags...)

	t0 := time.Now()
	s := waitTicks(b, w10, idleTicks, time.Minute)
	r.idle = tickFigures{tick: s.Tick, window: int(min(s.Tick.Count, window)), players: s.Players}
	r.idleRSS = mustRSS(b, w10.PID)
	r.idleSecs = time.Since(t0).Seconds()

	t0 = time.Now()
	r.natsRT = natsRoundTrips(b, cl.NATS)
	r.natsSecs = time.Since(t0).Seconds()
	t0 = time.Now()
	r.pm, r.pmOffline, r.pmNotOnline = pmAcross(b, w10, w11)
	r.pmSecs = time.Since(t0).Seconds()
	t0 = time.Now()
	r.hashRate = medianHashRate()
	r.hashSecs = time.Since(t0).Seconds()

	if !loadSelected() {
		b.Logf("the -bench pattern selects no benchmark of the 2,000-bot load: its part of the scenario is left out")
		return r
	}
	crowd := loaded(b, w10, swarm.Config{Friends: friendsEach, Seed: 2})
	r.busy, r.busyRSS, r.load, r.windowSecs = crowd.tick, crowd.rss, crowd.rep, crowd.secs
	// The 2,000 have logged out; ether ends their sessions (the cluster's
	// login lock) a little after the world lets them go.
	waitPlayers(b, w10, 0)
	waitTicks(b, w10, mustStatus(b, w10).Tick.Count+settleTicks, time.Minute)
	t0 = time.Now()
	r.stormHashRate = medianHashRate()
	r.stormHashSecs = time.Since(t0).Seconds()
	crowd = loaded(b, w10, swarm.Config{Friends: denseFriends, WalkReach: denseReach, Seed: 3})
	r.dense, r.storm, r.denseSecs = crowd.tick, crowd.rep, crowd.secs
	return r
}

// medianHashRate is the median of hashRuns runs of hashRate.
func medianHashRate() float64 {
	var rates []float64
	for range hashRuns {
		rates = append(rates, hashRate())
	}
	return median(rates)
}

// loadSelected reports whether the -test.bench pattern selects a benchmark
// that reports the 2,000-bot load (all but BenchmarkWorldPM), so that
// `-bench BenchmarkWorldPM` runs only the parts it reports. A pattern it
// cannot read selects the load.
func loadSelected() bool {
	f := flag.Lookup("test.bench")
	if f == nil {
		return true
	}
	top, _, _ := strings.Cut(f.Value.String(), "/")
	re, err := regexp.Compile(top)
	if err != nil {
		return true
	}
	for _, name := range []string{"BenchmarkWorldTick", "BenchmarkWorldLogins", "BenchmarkWorldReconnectStorm",
		"BenchmarkWorldRSS"} {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// run is one swarm run that must log everyone in.
func run(b *testing.B, cfg swarm.Config) swarm.Report {
	b.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	rep, err := swarm.Run(context.Background(), cfg)
	if err != nil {
		b.Fatalf("swarm: %v (%+v)", err, rep)
	}
	if rep.LoginFailures > 0 {
		b.Logf("swarm %s: %d logins failed: %v", cfg.Prefix, rep.LoginFailures, rep.Errors)
	}
	return rep
}

func mustRSS(b *testing.B, pid int) float64 {
	b.Helper()
	v, err := rssMB(pid)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// crowd is what loaded measured.
type crowd struct {
	tick tickFigures
	rss  float64 // MB, the median through the window
	rep  swarm.Report
	secs float64 // the window's wall time
}

// loaded logs players bots ("load0"…) into w, in the shape shape gives
// (Friends, WalkReach, Seed; the rest is the bench's), waits warmupTicks
// after the last login, measures exactly window ticks of /status and the
// RSS, and ends the run.
func loaded(b *testing.B, w worldtest.World, shape swarm.Config) crowd {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		rep swarm.Report
		err error
	}
	done, online := make(chan outcome, 1), make(chan int, 1)
	go func() {
		rep, err := swarm.Run(ctx, swarm.Config{Addrs: []string{w.Game}, Bots: players, Prefix: "load",
			Password: "pw", Friends: shape.Friends, FriendsOnline: friendsBound, Walk: true,
			WalkReach: shape.WalkReach, PMRate: loadPMRate, Duration: 10 * time.Minute,
			InFlight: loginsInFlight, Seed: shape.Seed, Logger: slog.New(slog.DiscardHandler),
			LoggedIn: func(n int) { online <- n }})
		done <- outcome{rep, err}
	}()
	began := time.Now()
	progress := time.NewTicker(15 * time.Second)
	defer progress.Stop()
	for waiting := true; waiting; {
		select {
		case n := <-online:
			b.Logf("%d of %d bots online after %.1fs", n, players, time.Since(began).Seconds())
			waiting = false
		case o := <-done:
			b.Fatalf("the swarm ended before its steady phase: %v %+v", o.err, o.rep)
		case <-progress.C:
			if time.Since(began) > loginBound {
				b.Fatalf("the bots were not logged in within %v", loginBound)
			}
			if s, err := status(w); err == nil {
				b.Logf("logging in: %d players online after %.0fs", s.Players, time.Since(began).Seconds())
			}
		}
	}
	// The friend graph and its presence settle for warmupTicks; then the
	// window is exactly the window ticks /status covers.
	start := waitTicks(b, w, mustStatus(b, w).Tick.Count+warmupTicks, time.Minute)
	began = time.Now()
	var s httpapi.Status
	var rss []float64 // sampled through the window, the median reported
	for i := 1; i <= rssSamples; i++ {
		s = waitTicks(b, w, start.Tick.Count+uint64(i*window/rssSamples), 2*time.Minute)
		rss = append(rss, mustRSS(b, w.PID))
	}
	out := crowd{secs: time.Since(began).Seconds(), tick: tickFigures{tick: s.Tick, window: window, players: s.Players},
		rss: median(rss)}
	cancel()
	o := <-done
	if o.err != nil && !errors.Is(o.err, context.Canceled) {
		b.Fatalf("swarm: %v", o.err)
	}
	out.rep = o.rep
	b.Logf("load bots (reach %d, %d friends): logins %.1f/s p50 %.0f ms p99 %.0f ms, errors %v; "+
		"friends online after %.2fs (%d friend rows not); %d PMs answered offline; tick p50 %.2f ms p99 %.2f ms",
		shape.WalkReach, shape.Friends, o.rep.LoginsPerSec, o.rep.LoginP50Ms, o.rep.LoginP99Ms, o.rep.Errors,
		o.rep.FriendsWaitSeconds, o.rep.FriendsNotOnline, o.rep.PMsOffline, s.Tick.P50MS, s.Tick.P99MS)
	return out
}

// waitPlayers waits until w has n players online.
func waitPlayers(b *testing.B, w worldtest.World, n int) {
	b.Helper()
	poll.Until(b, time.Minute, func() error {
		s, err := status(w)
		if err == nil && s.Players != n {
			err = fmt.Errorf("%d players online, waiting for %d", s.Players, n)
		}
		return err
	})
}

// natsRoundTrips is natsTrips raw request-replies on the cluster's NATS.
func natsRoundTrips(b *testing.B, url string) latency {
	b.Helper()
	responder, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer responder.Close()
	requester, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer requester.Close()
	if _, err := responder.Subscribe("bench.echo", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		b.Fatal(err)
	}
	if err := responder.Flush(); err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 64) // about a stamped PM
	var lat []time.Duration
	for range natsTrips {
		began := time.Now()
		if _, err := requester.Request("bench.echo", payload, 5*time.Second); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(began))
	}
	return percentiles(lat)
}

// percentiles is the nearest-rank p50 and p99 of d in microseconds.
func percentiles(d []time.Duration) latency {
	if len(d) == 0 {
		return latency{}
	}
	slices.Sort(d)
	rank := func(q float64) float64 {
		i := min(len(d)-1, max(0, int(float64(len(d))*q+0.999999)-1))
		return float64(d[i]) / float64(time.Microsecond)
	}
	return latency{p50: rank(0.50), p99: rank(0.99), n: len(d)}
}

// pmAcross: pmBots bots alternating between w10 and w11, each befriending
// the next (on the other world), send stamped PMs at pmRate for pmDuration,
// starting once every sender sees its friend online at the other world (as
// a player would). It returns the latency, the PMs answered "That player
// is currently offline." and the friend rows never seen online: both 0 in
// a healthy cluster.
func pmAcross(b *testing.B, w10, w11 worldtest.World) (lat latency, offline, notOnline int) {
	b.Helper()
	rep := run(b, swarm.Config{Addrs: []string{w10.Game, w11.Game}, Bots: pmBots, Prefix: "pm", Password: "pw",
		Friends: 1, FriendsOnline: friendsBound, PMRate: pmRate, Duration: pmDuration, Seed: 1})
	if rep.PMsReceived == 0 {
		b.Fatalf("no PM crossed the worlds: %+v", rep)
	}
	b.Logf("PM bots: friends online after %.2fs (%d not); %d PMs sent, %d received, %d answered offline",
		rep.FriendsWaitSeconds, rep.FriendsNotOnline, rep.PMsSent, rep.PMsReceived, rep.PMsOffline)
	lat = latency{p50: rep.PMP50Ms * 1000, p99: rep.PMP99Ms * 1000, n: rep.PMsReceived}
	return lat, rep.PMsOffline, rep.FriendsNotOnline
}

// median is the middle of v (the mean of the two middle values for an
// even count); v is sorted in place.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// hashRate is argon2id hashes per second at the world's parameters, one
// hasher per core (the world hashes at most GOMAXPROCS at once), for
// hashFor.
func hashRate() float64 {
	p := account.DefaultParams
	var n atomic.Int64
	deadline := time.Now().Add(hashFor)
	var wg sync.WaitGroup
	began := time.Now()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			salt := make([]byte, 16)
			for time.Now().Before(deadline) {
				_, _ = rand.Read(salt)
				argon2.IDKey([]byte("pw"), salt, p.Time, p.Memory, p.Threads, 32)
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(began).Seconds()
}
