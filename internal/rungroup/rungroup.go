// Package rungroup runs a program's background work so that it stops
// together: every function started with Go runs on the group's context
// until Stop cancels it, and Stop returns once all of them have returned.
// An error a function ends with before Stop is logged as "<what>
// stopped"; one after Stop is the expected end and is not.
package rungroup

import (
	"context"
	"log/slog"
	"sync"
)

// Group is background work that stops together. Its methods are safe for
// concurrent use; Go after Stop runs fn on a cancelled context.
type Group struct {
	ctx    context.Context    // immutable; the work's context
	cancel context.CancelFunc // immutable; ends ctx
	log    *slog.Logger       // immutable
	wg     sync.WaitGroup     // the running work
}

// New returns an empty group logging to log.
func New(log *slog.Logger) *Group {
	ctx, cancel := context.WithCancel(context.Background())
	return &Group{ctx: ctx, cancel: cancel, log: log}
}

// Go runs fn until the group stops; what names it in the log.
func (g *Group) Go(what string, fn func(ctx context.Context) error) {
	g.wg.Go(func() {
		if err := fn(g.ctx); err != nil && g.ctx.Err() == nil {
			g.log.Error(what+" stopped", "err", err)
		}
	})
}

// Stop cancels the work's context and waits for every function to return.
func (g *Group) Stop() {
	g.cancel()
	g.wg.Wait()
}

// Run is a group of one: fn runs until the returned stop is called, which
// waits for it. For teardown in a stated order, one component at a time.
func Run(log *slog.Logger, what string, fn func(ctx context.Context) error) (stop func()) {
	g := New(log)
	g.Go(what, fn)
	return g.Stop
}
