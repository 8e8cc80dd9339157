package swarm

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/corrosion/corrosion/internal/ctxtime"
	"github.com/corrosion/corrosion/worldsrv/bot"
)

// logoutTimeout bounds the logout of every bot at the end; pmDrain the
// wait after the run for PMs still on their way (each answered by a PM or
// a system message such as "That player is currently offline.").
const (
	logoutTimeout = 15 * time.Second
	pmDrain       = 5 * time.Second
)

// ErrNoLogins: not one bot logged in (the report says why).
var ErrNoLogins = errors.New("no bot logged in")

// run is one Run's state.
type run struct {
	cfg  Config    // immutable
	rec  *recorder // safe for concurrent use
	bots []*bot.Client
	// consumers drain the bots' events.
	consumers sync.WaitGroup
}

// Run logs the bots in, runs the steady phase for cfg.Duration (or until
// ctx ends), logs everyone out and returns the report. A cancelled ctx is
// not an error: the report says Interrupted. It fails with ErrNoLogins
// (and still returns the report) when no bot logged in.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	r := &run{cfg: cfg.withDefaults(), rec: newRecorder()}
	rep := Report{Worlds: len(cfg.Addrs), Bots: cfg.Bots}
	start := time.Now()
	r.bots = r.loginAll(ctx)
	rep.LoginSeconds = time.Since(start).Seconds()
	r.cfg.Logger.Debug("logins done", "ok", len(r.bots), "of", cfg.Bots)
	for _, c := range r.bots {
		r.consumers.Add(1)
		go r.consume(c)
	}
	r.addFriends()
	if r.cfg.FriendsOnline > 0 && r.cfg.Friends > 0 {
		began := time.Now()
		rep.FriendsNotOnline = r.waitFriends(ctx)
		rep.FriendsWaitSeconds = time.Since(began).Seconds()
	}
	if cfg.LoggedIn != nil {
		cfg.LoggedIn(len(r.bots))
	}
	before := r.positions()
	runStart := time.Now()
	r.steady(ctx)
	rep.RunSeconds = time.Since(runStart).Seconds()
	r.drain(ctx)
	rep.Positions = r.positions() - before
	r.fill(&rep)
	r.logoutAll()
	r.consumers.Wait()
	r.fillAfter(&rep)
	rep.Interrupted = ctx.Err() != nil
	if rep.Logins == 0 {
		return rep, ErrNoLogins
	}
	return rep, nil
}

// loginAll logs the bots in, cfg.Ramp per second and at most cfg.InFlight
// at once, and returns those that logged in.
func (r *run) loginAll(ctx context.Context) []*bot.Client {
	var (
		mu  sync.Mutex
		out []*bot.Client
		wg  sync.WaitGroup
		sem = make(chan struct{}, r.cfg.InFlight)
		t0  = time.Now()
	)
	for i := 0; i < r.cfg.Bots && ctx.Err() == nil; i++ {
		if r.cfg.Ramp > 0 && !ctxtime.Sleep(ctx, time.Until(t0.Add(time.Duration(float64(i)/r.cfg.Ramp*float64(time.Second))))) {
			break
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if c := r.login(ctx, i); c != nil {
				mu.Lock()
				out = append(out, c)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

// login logs bot i in, recording its latency or error.
func (r *run) login(ctx context.Context, i int) *bot.Client {
	began := time.Now()
	c, err := bot.DialConfig(ctx, bot.Config{Addr: r.cfg.Addrs[i%len(r.cfg.Addrs)], WebSocket: r.cfg.WebSocket,
		Name: r.cfg.name(i), Password: r.cfg.Password, LoginTimeout: r.cfg.LoginTimeout, Logger: r.cfg.Logger})
	if err != nil {
		r.rec.fail("login", err)
		r.cfg.Logger.Debug("login failed", "bot", r.cfg.name(i), "err", err)
		return nil
	}
	r.rec.login(time.Since(began))
	return c
}

// consume drains c's events until its connection ends, recording PM
// latencies of stamped messages.
func (r *run) consume(c *bot.Client) {
	defer r.consumers.Done()
	for ev := range c.Events() {
		if ev.Kind == bot.EventSystem {
			r.rec.count("system")
			if ev.Text == TextOffline {
				r.rec.count("offline")
			}
			r.cfg.Logger.Debug("system message", "bot", c.Name(), "text", ev.Text)
		}
		if ev.Kind == bot.EventPM {
			r.rec.count("pm_in")
			if ev.PM.Stamped {
				r.rec.pm(ev.PM.Latency)
			}
		}
	}
}

// index is the number in c's name.
func (r *run) index(c *bot.Client) int {
	n := 0
	for _, ch := range c.Name()[len(r.cfg.Prefix):] {
		n = n*10 + int(ch-'0')
	}
	return n
}

// positions sums the Position updates the bots have received.
func (r *run) positions() int {
	n := 0
	for _, c := range r.bots {
		n += c.State().Positions
	}
	return n
}

// rng makes a generator for one goroutine of the run.
func (r *run) rng(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(r.cfg.Seed), stream))
}

// drain waits up to pmDrain, or until ctx ends, for every PM sent to be
// answered by a PM or a system message at some bot.
func (r *run) drain(ctx context.Context) {
	deadline := time.Now().Add(pmDrain)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		r.rec.mu.Lock()
		done := r.rec.counts["pm_in"]+r.rec.counts["system"] >= r.rec.counts["pm"]
		r.rec.mu.Unlock()
		if done {
			return
		}
		ctxtime.Sleep(ctx, 20*time.Millisecond)
	}
}
