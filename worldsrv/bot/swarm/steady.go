package swarm

import (
	"context"
	"sync"
	"time"

	"github.com/corrosion/corrosion/internal/ctxtime"
	"github.com/corrosion/corrosion/worldsrv/bot"
)

// Walking: every bot picks a new target within Config.WalkReach tiles of
// where it is every walkEvery (plus up to one more walkEvery of jitter).
const walkEvery = 3 * time.Second

// steady runs the walkers and the PM sender for cfg.Duration or until ctx
// ends.
func (r *run) steady(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Duration)
	defer cancel()
	var wg sync.WaitGroup
	if r.cfg.Walk {
		for i, c := range r.bots {
			wg.Add(1)
			go func() { defer wg.Done(); r.walker(ctx, c, uint64(i)+1) }()
		}
	}
	if r.cfg.PMRate > 0 && len(r.bots) > 1 {
		wg.Add(1)
		go func() { defer wg.Done(); r.pmSender(ctx) }()
	}
	<-ctx.Done()
	wg.Wait()
}

// walker walks c to random targets near it until ctx ends.
func (r *run) walker(ctx context.Context, c *bot.Client, stream uint64) {
	rng := r.rng(stream)
	for {
		st := c.State()
		reach := r.cfg.WalkReach
		x := clampTile(int(st.Position.X)+rng.IntN(2*reach+1)-reach, st.Map.Width)
		y := clampTile(int(st.Position.Y)+rng.IntN(2*reach+1)-reach, st.Map.Height)
		if err := c.Walk(x, y); err != nil {
			r.rec.fail("walk", err)
			return
		}
		r.rec.count("walk")
		if !ctxtime.Sleep(ctx, walkEvery+time.Duration(rng.Int64N(int64(walkEvery)))) {
			return
		}
	}
}

func clampTile(v int, size uint16) uint16 {
	return uint16(min(max(v, 0), max(int(size)-1, 0)))
}

// pmSender sends cfg.PMRate stamped PMs per second from random bots to a
// friend of theirs (another random bot when they have none) until ctx ends.
func (r *run) pmSender(ctx context.Context) {
	rng := r.rng(0)
	every := time.Duration(float64(time.Second) / r.cfg.PMRate)
	next := time.Now()
	for seq := uint64(1); ; seq++ {
		if !ctxtime.Sleep(ctx, time.Until(next)) {
			return
		}
		next = next.Add(every)
		from := r.bots[rng.IntN(len(r.bots))]
		to := r.pmTarget(r.index(from), rng.IntN)
		if err := from.PM(to, bot.Stamp(seq, time.Now())); err != nil {
			r.rec.fail("pm", err)
			continue
		}
		r.rec.count("pm")
	}
}

// pmTarget picks the recipient of a PM from bot i.
func (r *run) pmTarget(i int, intN func(int) int) string {
	if r.cfg.Friends > 0 {
		return r.cfg.name((i + 1 + intN(r.cfg.Friends)) % r.cfg.Bots)
	}
	return r.cfg.name((i + 1 + intN(r.cfg.Bots-1)) % r.cfg.Bots)
}

// logoutAll logs every bot out at once, within logoutTimeout.
func (r *run) logoutAll() {
	ctx, cancel := context.WithTimeout(context.Background(), logoutTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range r.bots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Logout(ctx); err != nil {
				r.rec.fail("logout", err)
			}
		}()
	}
	wg.Wait()
}

// fill copies the figures known before logout into rep.
func (r *run) fill(rep *Report) {
	rep.Logins = len(r.bots)
	rep.LoginFailures = rep.Bots - rep.Logins
	if rep.LoginSeconds > 0 {
		rep.LoginsPerSec = float64(rep.Logins) / rep.LoginSeconds
	}
	if rep.RunSeconds > 0 {
		rep.PositionsPerSec = float64(rep.Positions) / rep.RunSeconds
	}
	for _, c := range r.bots {
		st := c.State()
		rep.NearbyMsgs += st.NearbyMsgs
	}
}

// fillAfter copies the figures complete once the bots are gone.
func (r *run) fillAfter(rep *Report) {
	r.rec.mu.Lock()
	defer r.rec.mu.Unlock()
	rep.LoginP50Ms, rep.LoginP99Ms = percentileMs(r.rec.logins, 0.50), percentileMs(r.rec.logins, 0.99)
	rep.PMP50Ms, rep.PMP99Ms = percentileMs(r.rec.pms, 0.50), percentileMs(r.rec.pms, 0.99)
	rep.FriendAdds, rep.WalksSent = r.rec.counts["friend"], r.rec.counts["walk"]
	rep.PMsSent, rep.PMsReceived = r.rec.counts["pm"], r.rec.counts["pm_in"]
	rep.SystemMsgs, rep.PMsOffline = r.rec.counts["system"], r.rec.counts["offline"]
	rep.Errors = r.rec.errs
	for _, c := range r.bots {
		rep.EventsDropped += c.State().Dropped
	}
}
