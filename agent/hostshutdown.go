package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/agent/supervise"
	"github.com/corrosion/corrosion/agent/wire"
)

// ErrHostShutdown is the cause to cancel Run's context with
// (context.WithCancelCause) when the host is shutting down: before it
// returns, Run then stops every running game gracefully, as a panel stop
// does, instead of leaving them running for the next agent to adopt.
var ErrHostShutdown = errors.New("host shutdown")

// hostStopGrace is how long past an instance's stop timeout (after which
// the supervisor kills its process tree) the agent waits for the exit.
const hostStopGrace = 10 * time.Second

// stopAllForHostShutdown stops every managed instance that is up, all in
// parallel, each the way a panel stop does (stop_command or SIGTERM, then
// a kill after stop_timeout_seconds), and waits until they have exited.
// Their states go out over NATS as usual. It returns how many it stopped.
func (a *Agent) stopAllForHostShutdown() int {
	var wg sync.WaitGroup
	var stopped atomic.Int64
	for _, inst := range a.list() {
		if inst.sup == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a.stopForHostShutdown(inst) {
				stopped.Add(1)
			}
		}()
	}
	wg.Wait()
	n := int(stopped.Load())
	a.log.Info(fmt.Sprintf("host shutdown: %d games stopped", n), "stopped", n)
	return n
}

// stopForHostShutdown stops one instance and waits for it to come to rest.
// A power action already in progress (an operator's stop or restart) is
// waited for first. It reports whether the instance was up and has stopped.
func (a *Agent) stopForHostShutdown(inst *instance) bool {
	timeout := inst.conf().StopTimeout() + hostStopGrace
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	log := a.log.With("instance", inst.conf().ID)
	began := time.Now()
	wasUp := false
	for {
		err := inst.sup.StopForHostShutdown()
		switch {
		case err == nil:
			wasUp = true
		case errors.Is(err, supervise.ErrBusy):
			wasUp = true // a stop, restart or kill is under way: let it finish, then stop
		case errors.Is(err, supervise.ErrNotRunning):
			if wasUp {
				st := inst.sup.Status()
				log.Info("host shutdown: stopped", "state", st.State, "exit_code", codeOf(st.ExitCode),
					"took", time.Since(began).Round(time.Millisecond))
			}
			return wasUp
		default:
			log.Warn("host shutdown: stop", "err", err)
			return false
		}
		if _, err := waitStatus(ctx, inst.sup, timeout, settledAndIdle); err != nil {
			log.Warn("host shutdown: the instance did not stop", "err", err)
			return false
		}
	}
}

// settledAndIdle: no action is under way (a restart that has stopped is
// not idle until its new start has begun).
func settledAndIdle(st supervise.Status) bool {
	return st.Busy == "" && st.State != wire.StateStopping
}

// codeOf is an exit code for a log line: "unknown" when there is none
// (an adopted process).
func codeOf(code *int) string {
	if code == nil {
		return "unknown"
	}
	return fmt.Sprint(*code)
}
