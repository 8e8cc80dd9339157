// Package periodic runs a piece of work at a fixed interval until its
// context ends: the one ticker loop of the module's background chores
// (the agent's checkpoints, ether's database ping and health snapshot).
package periodic

import (
	"context"
	"time"
)

// Every calls fn(ctx) every d, the first time after d, until ctx ends. It
// returns when ctx ends, never while fn runs; a call that outlasts d
// delays the next (ticks are not queued up).
func Every(ctx context.Context, d time.Duration, fn func(context.Context)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ctx.Err() != nil { // both were ready: the end wins
			return
		}
		fn(ctx)
	}
}

// NowAndEvery calls fn(ctx) at once, then as Every does.
func NowAndEvery(ctx context.Context, d time.Duration, fn func(context.Context)) {
	if ctx.Err() != nil {
		return
	}
	fn(ctx)
	Every(ctx, d, fn)
}
