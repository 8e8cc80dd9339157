package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Main runs p with the process's arguments, under SignalContext, and
// exits with its code. p writes where its Stdout and Stderr say.
func Main(p Program) {
	ctx, stop := SignalContext(context.Background())
	code := p.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// SignalContext is a binary's root context: SIGINT (Ctrl-C) and SIGTERM
// (systemd, the agent, docker stop) cancel it. After the first signal,
// later ones are caught too until stop is called, so a second Ctrl-C
// does not cut a graceful stop short.
func SignalContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}
