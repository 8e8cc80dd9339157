package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corrosion/corrosion/agent/supervise"
	"github.com/corrosion/corrosion/agent/wire"
)

// Limits of instance commands.
const (
	defaultWait      = 60 * time.Second  // "wait": true without timeout_seconds
	dependencyWait   = 120 * time.Second // a dependency has this long to become running
	defaultLogsLines = 100
)

// powerArgs are the optional fields of start, stop, restart and kill.
type powerArgs struct {
	Wait           bool `json:"wait"`            // reply once the action has finished
	TimeoutSeconds int  `json:"timeout_seconds"` // with wait; default 60
}

func (a *Agent) instanceFuncs(inst *instance) funcTable {
	power := func(do func(ctx context.Context, inst *instance, args powerArgs) error) handler {
		return func(ctx context.Context, req wire.Request) (any, error) {
			var args powerArgs
			if err := req.Decode(&args); err != nil {
				return nil, err
			}
			if inst.sup == nil {
				return nil, notManaged(inst)
			}
			if err := do(ctx, inst, args); err != nil {
				return nil, fmt.Errorf("%s %s: %w", req.Func, inst.cfg.ID, err)
			}
			return a.status(inst), nil
		}
	}
	return funcTable{
		funcs: map[string]handler{
			"start":   power(a.doStart),
			"stop":    power(a.doStop),
			"restart": power(a.doRestart),
			"kill":    power(a.doKill),
			"status":  func(context.Context, wire.Request) (any, error) { return a.status(inst), nil },
			"logs":    func(_ context.Context, req wire.Request) (any, error) { return logs(inst, req) },
			"send":    func(_ context.Context, req wire.Request) (any, error) { return nil, send(inst, req) },
			"rcon":    func(ctx context.Context, req wire.Request) (any, error) { return rconExec(ctx, inst, req) },
		},
		blocking: func(req wire.Request) bool {
			switch req.Func {
			case "start", "stop", "restart", "kill":
				var args powerArgs
				_ = req.Decode(&args)
				return args.Wait || (req.Func == "start" && len(inst.cfg.DependsOn) > 0)
			case "rcon":
				return true
			}
			return false
		},
	}
}

func notManaged(inst *instance) error {
	return wire.Errorf(wire.CodeNotManaged, "instance %s is unmanaged (no exec configured)", inst.cfg.ID)
}

func (a *Agent) status(inst *instance) wire.InstanceStatus {
	r := wire.InstanceStatus{ID: inst.cfg.ID, Game: inst.cfg.Game, Managed: inst.sup != nil}
	if inst.sup == nil {
		r.State = unmanagedState(inst.cfg.Root)
		return r
	}
	st := inst.sup.Status()
	r.State, r.UptimeSeconds, r.PID, r.ExitCode = st.State, st.UptimeSeconds, st.PID, st.ExitCode
	r.CrashCount, r.Busy, r.RestartIn, r.ManualStop = st.CrashCount, st.Busy, st.RestartIn, st.ManualStop
	r.Adopted, r.DroppedLines, r.SkippedBytes = st.Adopted, st.DroppedLines, st.SkippedBytes
	return r
}

func (a *Agent) doStart(ctx context.Context, inst *instance, args powerArgs) error {
	if err := a.startWithDeps(ctx, inst, true); err != nil {
		return err
	}
	return waitIf(ctx, inst, args, func(st supervise.Status) bool {
		return st.State == wire.StateRunning || st.State == wire.StateCrashed || st.State == wire.StateStopped
	})
}

func (a *Agent) doStop(ctx context.Context, inst *instance, args powerArgs) error {
	if err := inst.sup.Stop(); err != nil {
		return err
	}
	return waitIf(ctx, inst, args, settled)
}

func (a *Agent) doRestart(ctx context.Context, inst *instance, args powerArgs) error {
	if err := inst.sup.Restart(); err != nil {
		return err
	}
	return waitIf(ctx, inst, args, func(st supervise.Status) bool {
		return st.Busy == "" && (st.State == wire.StateRunning || st.State == wire.StateCrashed)
	})
}

func (a *Agent) doKill(ctx context.Context, inst *instance, args powerArgs) error {
	if err := inst.sup.Kill(); err != nil {
		return err
	}
	return waitIf(ctx, inst, args, settled)
}

func settled(st supervise.Status) bool {
	return st.State == wire.StateStopped || st.State == wire.StateCrashed
}

func waitIf(ctx context.Context, inst *instance, args powerArgs, done func(supervise.Status) bool) error {
	if !args.Wait {
		return nil
	}
	timeout := defaultWait
	if args.TimeoutSeconds > 0 {
		timeout = time.Duration(args.TimeoutSeconds) * time.Second
	}
	_, err := waitStatus(ctx, inst.sup, timeout, done)
	return err
}

// waitStatus waits until done(status) holds.
func waitStatus(ctx context.Context, sup *supervise.Supervisor, timeout time.Duration, done func(supervise.Status) bool) (supervise.Status, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		ch := sup.Changed() // before Status, so no change is missed
		st := sup.Status()
		if done(st) {
			return st, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return st, ctx.Err()
		case <-timer.C:
			return st, fmt.Errorf("still %s after %v", st.State, timeout)
		}
	}
}

// startWithDeps starts inst after each of its dependencies (transitively,
// in dependency order) is running, starting those that are not.
func (a *Agent) startWithDeps(ctx context.Context, inst *instance, manual bool) error {
	for _, dep := range a.dependencies(inst) {
		if dep.sup == nil {
			continue // unmanaged: nothing we can start
		}
		st := dep.sup.Status()
		if st.State != wire.StateRunning && st.State != wire.StateStarting {
			if err := dep.sup.Start(manual); err != nil && !errors.Is(err, supervise.ErrAlreadyRunning) {
				return fmt.Errorf("start dependency %s: %w", dep.cfg.ID, err)
			}
		}
		st, err := waitStatus(ctx, dep.sup, dependencyWait, func(st supervise.Status) bool {
			return st.State == wire.StateRunning || st.State == wire.StateCrashed || st.State == wire.StateStopped
		})
		if err != nil {
			return fmt.Errorf("dependency %s: %w", dep.cfg.ID, err)
		}
		if st.State != wire.StateRunning {
			return fmt.Errorf("dependency %s is %s", dep.cfg.ID, st.State)
		}
	}
	return inst.sup.Start(manual)
}

// dependencies lists inst's transitive dependencies in start order.
func (a *Agent) dependencies(inst *instance) []*instance {
	need := map[string]bool{}
	var visit func(id string)
	visit = func(id string) {
		for _, d := range a.byID[id].cfg.DependsOn {
			if !need[d] {
				need[d] = true
				visit(d)
			}
		}
	}
	visit(inst.cfg.ID)
	order, _ := a.cfg.StartOrder() // validated at load: no cycles
	var out []*instance
	for _, ic := range order {
		if need[ic.ID] {
			out = append(out, a.byID[ic.ID])
		}
	}
	return out
}

func logs(inst *instance, req wire.Request) (any, error) {
	var args struct {
		Lines int `json:"lines"`
	}
	if err := req.Decode(&args); err != nil {
		return nil, err
	}
	if args.Lines < 0 {
		return nil, wire.Errorf(wire.CodeBadArgs, `"lines" must not be negative`)
	}
	if args.Lines == 0 {
		args.Lines = defaultLogsLines
	}
	if inst.sup == nil {
		return nil, notManaged(inst)
	}
	return wire.LogsReply{Lines: inst.sup.Logs(args.Lines)}, nil
}

func send(inst *instance, req wire.Request) error {
	var args struct {
		Command *string `json:"command"`
		Line    *string `json:"line"`
	}
	if err := req.Decode(&args); err != nil {
		return err
	}
	line := args.Command
	if line == nil {
		line = args.Line
	}
	if line == nil {
		return wire.Errorf(wire.CodeBadArgs, `send needs "command": the line to write to the console`)
	}
	if inst.sup == nil {
		return notManaged(inst)
	}
	if err := inst.sup.Send(*line); err != nil {
		return fmt.Errorf("send %s: %w", inst.cfg.ID, toWire(err))
	}
	return nil
}

func (a *Agent) uptimeSeconds() int64 { return int64(time.Since(a.started).Seconds()) }
