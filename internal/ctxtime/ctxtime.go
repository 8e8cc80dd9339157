// Package ctxtime is waiting that ends with a context: the one ticker loop
// of the module's background chores (Every, NowAndEvery: the agent's
// checkpoints, ether's database ping and health snapshot) and a sleep
// (Sleep: the agent's CPU sample window).
package ctxtime

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

// Sleep waits for d and reports true, or returns false as soon as ctx
// ends. A d of zero or less returns at once: true unless ctx has ended.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
