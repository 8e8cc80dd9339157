package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The shutdown hook: `corrosion-agent shutdown-hook`, the systemd unit's
// ExecStop (run as root). systemd runs it on every stop of the service.
// Only when the host itself is going down does it ask the agent (its
// $MAINPID) to stop every game gracefully and waits for the agent to exit;
// on a restart, stop, upgrade or uninstall it returns at once and the
// games keep running (KillMode=process), to be adopted by the next agent.

// hookWait bounds the hook's wait for the agent to exit. It stays below
// the unit's TimeoutStopSec (120 s), after which systemd would kill the
// hook; past it systemd goes on with SIGTERM (which the stopping agent
// ignores) and, TimeoutStopSec later, SIGKILL.
const hookWait = 110 * time.Second

// hookPoll is how often the hook checks whether the agent has exited.
const hookPoll = 100 * time.Millisecond

// hookAction is what the hook does for a system state.
type hookAction int

const (
	hookLeave     hookAction = iota // not a host shutdown: the games keep running
	hookStopGames                   // host shutdown: signal the agent, wait for it
)

// hookDecision decides from the output of `systemctl is-system-running`
// (which exits non-zero for every state but "running", so its error counts
// only when it printed nothing). Only "stopping" (a shutdown or reboot job
// is queued) stops the games; when systemd cannot be asked, the games keep
// running, as on any agent stop.
func hookDecision(state string, err error) (hookAction, string) {
	state = strings.TrimSpace(state)
	switch {
	case state == "" && err != nil:
		return hookLeave, fmt.Sprintf("cannot ask systemd whether the host is shutting down (%v); the games keep running", err)
	case state == "stopping":
		return hookStopGames, "the host is shutting down: asking the agent to stop every game"
	}
	return hookLeave, ""
}

// hookEnv is what the hook needs from the system, replaced in tests.
type hookEnv struct {
	systemState func(ctx context.Context) (string, error)        // systemctl is-system-running
	signal      func(pid int) error                              // send the host-shutdown signal
	alive       func(pid int) bool                               // the process exists (and is no zombie)
	mainPID     string                                           // $MAINPID, "" when systemd knows none
	wait, poll  time.Duration                                    // bound and interval of the wait
	sleep       func(ctx context.Context, d time.Duration) error // between polls
}

// runHook carries out the hook and returns its exit code.
func runHook(ctx context.Context, env hookEnv, stderr io.Writer) int {
	state, err := env.systemState(ctx)
	action, msg := hookDecision(state, err)
	if msg != "" {
		fmt.Fprintln(stderr, "shutdown-hook: "+msg)
	}
	if action == hookLeave {
		return 0
	}
	pid, err := strconv.Atoi(env.mainPID)
	if err != nil || pid <= 0 {
		fmt.Fprintf(stderr, "shutdown-hook: no agent process ($MAINPID %q): nothing to stop\n", env.mainPID)
		return 0
	}
	if err := env.signal(pid); err != nil {
		fmt.Fprintf(stderr, "shutdown-hook: signal the agent (pid %d): %v\n", pid, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(ctx, env.wait)
	defer cancel()
	for env.alive(pid) {
		if err := env.sleep(ctx, env.poll); err != nil {
			fmt.Fprintf(stderr, "shutdown-hook: the agent (pid %d) is still stopping the games after %v; systemd takes over\n", pid, env.wait)
			return 1
		}
	}
	fmt.Fprintf(stderr, "shutdown-hook: the agent (pid %d) has stopped the games and exited\n", pid)
	return 0
}

// sleepCtx sleeps d unless ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
