package bench

import (
	"testing"
	"time"

	"github.com/corrosion/corrosion/worldsrv/bot/swarm"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// Each benchmark reads its figures from the one scenario run (see
// scenario_test.go) and reports them beside its baseline; ns/op is the
// wall time of the part of the scenario that measured them.

// BenchmarkWorldTick: whole-tick and per-phase p50/p99 from world 10's
// /status over a window of 100 ticks with 2,000 bots walking and sending
// PMs over TCP (friend graph of 3 each), beside the same world empty.
func BenchmarkWorldTick(b *testing.B) {
	r := scenario(b)
	b.Run("baseline", func(b *testing.B) {
		reportTick(b, r.idle.tick, r.idle.window)
		b.ReportMetric(float64(r.idle.players), "players")
		wall(b, r.idleSecs)
	})
	b.Run("corrosion", func(b *testing.B) {
		reportTick(b, r.busy.tick, r.busy.window)
		b.ReportMetric(float64(r.busy.players), "players")
		wall(b, r.windowSecs)
	})
	b.Run("corrosion-dense", func(b *testing.B) {
		reportTick(b, r.dense.tick, r.dense.window)
		b.ReportMetric(float64(r.dense.players), "players")
		wall(b, r.denseSecs)
	})
}

// BenchmarkWorldPM: a stamped PM from a bot on world 10 to a bot on world
// 11 (and back), client write to client read, beside a raw NATS
// request-reply on the same NATS server. The PMs start once every sender
// sees its friend online; a PM answered "That player is currently
// offline." (or a friend never seen online) fails the benchmark.
func BenchmarkWorldPM(b *testing.B) {
	r := scenario(b)
	b.Run("baseline", func(b *testing.B) {
		b.ReportMetric(r.natsRT.p50/1000, "p50-ms")
		b.ReportMetric(r.natsRT.p99/1000, "p99-ms")
		b.ReportMetric(float64(r.natsRT.n), "samples")
		wall(b, r.natsSecs)
	})
	b.Run("corrosion", func(b *testing.B) {
		b.ReportMetric(r.pm.p50/1000, "p50-ms")
		b.ReportMetric(r.pm.p99/1000, "p99-ms")
		b.ReportMetric(float64(r.pm.n), "samples")
		b.ReportMetric(float64(r.pmOffline), "offline")
		wall(b, r.pmSecs)
		if r.pmOffline > 0 || r.pmNotOnline > 0 {
			b.Errorf("%d PMs answered \"That player is currently offline.\" and %d friend rows never online, "+
				"with every PM bot logged in and its friend added: want 0 and 0", r.pmOffline, r.pmNotOnline)
		}
	})
}

// BenchmarkWorldLogins: logins per second into world 10, 2,000 new
// accounts (autoregister), beside the argon2id hash rate alone on both
// cores (every login hashes once).
func BenchmarkWorldLogins(b *testing.B) {
	r := scenario(b)
	b.Run("baseline", func(b *testing.B) { reportHashRate(b, r.hashRate, r.hashSecs) })
	b.Run("corrosion", func(b *testing.B) { reportLogins(b, r.load) })
}

// reportHashRate reports an argon2id rate as the logins/s no login path
// can beat, measured in secs.
func reportHashRate(b *testing.B, rate, secs float64) {
	b.ReportMetric(rate, "logins/s")
	wall(b, secs)
}

// reportLogins reports a swarm run's logins: rate, p99, failures.
func reportLogins(b *testing.B, rep swarm.Report) {
	b.ReportMetric(rep.LoginsPerSec, "logins/s")
	b.ReportMetric(rep.LoginP99Ms, "login-p99-ms")
	b.ReportMetric(float64(rep.LoginFailures), "failed")
	wall(b, rep.LoginSeconds)
}

// BenchmarkWorldReconnectStorm: the 2,000 accounts of the load logging in
// again at once, 100 in flight, as after a world restart: the rate, the
// login latency and the logins answered 13 (could not complete; it fails
// on any), beside argon2id verifications per second alone at the world's
// parameters on the same cores, measured right before.
func BenchmarkWorldReconnectStorm(b *testing.B) {
	r := scenario(b)
	b.Run("baseline", func(b *testing.B) { reportHashRate(b, r.stormHashRate, r.stormHashSecs) })
	b.Run("corrosion", func(b *testing.B) {
		rep := r.storm
		refused := rep.Errors["login: "+proto.LoginCouldNotComplete.String()]
		b.ReportMetric(rep.LoginP50Ms, "login-p50-ms")
		b.ReportMetric(float64(refused), "answered-13")
		reportLogins(b, rep)
		if refused > 0 || rep.LoginFailures > 0 {
			b.Errorf("%d of %d existing accounts did not get in (%d answered 13): %v; want all in",
				rep.LoginFailures, rep.Bots, refused, rep.Errors)
		}
	})
}

// BenchmarkWorldRSS: worldsrv's VmRSS (its sidecar not included) at the
// end of the measured window with 2,000 players, beside the idle world.
func BenchmarkWorldRSS(b *testing.B) {
	r := scenario(b)
	b.Run("baseline", func(b *testing.B) {
		b.ReportMetric(r.idleRSS, "rss-MB")
		wall(b, r.idleSecs)
	})
	b.Run("corrosion", func(b *testing.B) {
		b.ReportMetric(r.busyRSS, "rss-MB")
		b.ReportMetric(float64(r.busy.players), "players")
		wall(b, r.windowSecs)
	})
}

// wall reports secs as the benchmark's ns/op (the sub-benchmark only
// reports figures measured once, however many times go test calls it).
func wall(b *testing.B, secs float64) {
	b.ReportMetric(secs*float64(time.Second), "ns/op")
}
