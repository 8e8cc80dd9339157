package ingest

import (
	"context"
	"time"

	"github.com/corrosion/corrosion/internal/ctxtime"
	"github.com/corrosion/corrosion/panel/store"
)

// Bounded pruning work per round: at most this many chunks per kind, and
// this many timelines trimmed.
const (
	pruneChunksPerRound = 10
	trimPerRound        = 1000
)

// pruneLoop keeps the history bounded: every PruneEvery it deletes what is
// past the retention (a few chunks at most) and trims the timelines that
// grew since. Replicas pruning at once do the same deletes harmlessly.
func (in *Ingester) pruneLoop(ctx context.Context) {
	ctxtime.Every(ctx, in.cfg.PruneEvery, in.pruneRound)
}

func (in *Ingester) pruneRound(ctx context.Context) {
	for range pruneChunksPerRound {
		touched := in.takeTouched(trimPerRound)
		p, err := in.store.Prune(ctx, in.cfg.Retention, time.Now(), touched)
		if err != nil {
			in.giveBackTouched(touched)
			if ctx.Err() == nil {
				in.log.Warn("ingest: prune failed; next round retries", "err", err)
			}
			return
		}
		if !p.Full(in.cfg.Retention) && len(touched) < trimPerRound {
			return
		}
	}
}

func (in *Ingester) takeTouched(n int) []store.InstanceKey {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]store.InstanceKey, 0, min(n, len(in.touched)))
	for k := range in.touched {
		if len(out) == n {
			break
		}
		out = append(out, k)
		delete(in.touched, k)
	}
	return out
}

func (in *Ingester) giveBackTouched(keys []store.InstanceKey) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, k := range keys {
		if len(in.touched) < maxTouched {
			in.touched[k] = struct{}{}
		}
	}
}
