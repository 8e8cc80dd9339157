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

// powerFunc carries out one power action on a managed instance.
type powerFunc func(ctx context.Context, inst *instance, args powerArgs) error

func (a *Agent) instanceFuncs(inst *instance) funcTable {
	return funcTable{funcs: map[string]spec{
		wire.FuncStart:   a.power(inst, supervise.ActionStart, a.doStart),
		wire.FuncStop:    a.power(inst, supervise.ActionStop, a.doStop),
		wire.FuncRestart: a.power(inst, supervise.ActionRestart, a.doRestart),
		wire.FuncKill:    a.power(inst, supervise.ActionKill, a.doKill),
		wire.FuncStatus:  quick(func(context.Context, wire.Request) (any, error) { return a.status(inst), nil }),
		wire.FuncLogs:    logsSpec(inst),
		wire.FuncSend:    sendSpec(inst),
		// rcon talks to the game server over TCP: it may take a while.
		wire.FuncRCON: slow(func(ctx context.Context, req wire.Request) (any, error) { return rconExec(ctx, inst, req) }),
		// Provisioning tasks (taskcmd.go).
		wire.FuncInstall:      a.taskSpec(inst, wire.FuncInstall),
		wire.FuncUpdateCheck:  a.updateCheckSpec(inst),
		wire.FuncSteamUpdate:  a.taskSpec(inst, wire.FuncSteamUpdate),
		wire.FuncOxideInstall: a.taskSpec(inst, wire.FuncOxideInstall),
	}}
}

// power is the spec of a power action. It blocks while it waits (wait, or
// a start that first starts its dependencies).
func (a *Agent) power(inst *instance, act supervise.Action, do powerFunc) spec {
	return func(req wire.Request) (call, error) {
		var args powerArgs
		if err := req.Decode(&args); err != nil {
			return call{}, err
		}
		if inst.sup == nil {
			return call{}, notManaged(inst)
		}
		if task := a.tasks.current(inst.conf().ID); task != "" && (act == supervise.ActionStart || act == supervise.ActionRestart) {
			return call{}, wire.Errorf(wire.CodeBusy, "instance %s is busy with %s; start it when the task has ended", inst.conf().ID, task)
		}
		blocking := args.Wait || (act == supervise.ActionStart && len(inst.conf().DependsOn) > 0)
		return call{blocking: blocking, run: func(ctx context.Context) (any, error) {
			// A delete in progress holds life: say so rather than hold up
			// the instance's subscription until it is done.
			if !inst.life.TryRLock() {
				return nil, wire.Errorf(wire.CodeBusy, "instance %s is being deleted", inst.conf().ID)
			}
			defer inst.life.RUnlock()
			if inst.gone {
				return nil, wire.UnknownInstance(inst.conf().ID, a.instanceIDs())
			}
			err := do(ctx, inst, args)
			switch {
			case err == nil:
				return a.status(inst), nil
			case errors.Is(err, errWaitTimeout):
				// The action goes on; the reply says where it stands.
				return nil, &wire.Error{Code: wire.CodeTimeout, Payload: a.status(inst),
					Msg: fmt.Sprintf("%s %s: %v", act, inst.conf().ID, err)}
			}
			return nil, fmt.Errorf("%s %s: %w", act, inst.conf().ID, err)
		}}, nil
	}
}

func notManaged(inst *instance) error {
	return wire.Errorf(wire.CodeNotManaged, "instance %s is unmanaged (no exec configured)", inst.conf().ID)
}

// status is the reply of status and of the power actions.
func (a *Agent) status(inst *instance) wire.InstanceStatus {
	var r wire.InstanceStatus
	if inst.sup == nil {
		r.State = unmanagedState(inst.conf().Root)
	} else {
		r = inst.sup.Status().Wire()
	}
	r.ID, r.Game, r.Consoles = inst.conf().ID, inst.conf().Game, consoles(inst)
	return r
}

// consoles says which consoles inst offers (wire.Consoles).
func consoles(inst *instance) wire.Consoles {
	c := wire.Consoles{RCON: wire.RCONNone, ConsoleInput: new(inst.sup != nil)}
	if inst.conf().RCON != nil {
		c.RCON = string(inst.conf().RCON.Kind)
	}
	return c
}

func (a *Agent) doStart(ctx context.Context, inst *instance, args powerArgs) error {
	a.editConfigs(inst)
	if err := a.startWithDeps(ctx, inst, true); err != nil {
		return err
	}
	return waitIf(ctx, inst, args, settled)
}

func (a *Agent) doStop(ctx context.Context, inst *instance, args powerArgs) error {
	if err := inst.sup.Stop(); err != nil {
		return err
	}
	return waitIf(ctx, inst, args, settled)
}

func (a *Agent) doRestart(ctx context.Context, inst *instance, args powerArgs) error {
	a.editConfigs(inst)
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

// settled: the action has come to rest (neither starting nor stopping).
// A stop or kill moves to stopping at once, so for them this is stopped or
// crashed.
func settled(st supervise.Status) bool { return st.State.Settled() }

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

// errWaitTimeout: a wait ran out before the action came to rest.
var errWaitTimeout = errors.New("timed out")

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
			return st, fmt.Errorf("%w: still %s after %v", errWaitTimeout, st.State, timeout)
		}
	}
}

// startWithDeps starts inst after each of its dependencies (transitively,
// in dependency order) is running, starting those that are not. A
// dependency that does not come up is dependency_failed.
func (a *Agent) startWithDeps(ctx context.Context, inst *instance, manual bool) error {
	for _, dep := range a.dependencies(inst) {
		if dep.sup == nil {
			continue // unmanaged: nothing we can start
		}
		if err := a.bringUp(ctx, dep, manual); err != nil {
			if errors.Is(err, context.Canceled) {
				return err
			}
			return wire.Errorf(wire.CodeDependencyFailed, "dependency %s: %v", dep.conf().ID, err)
		}
	}
	return inst.sup.Start(manual)
}

// bringUp starts dep unless it is up already and waits until it is running.
func (a *Agent) bringUp(ctx context.Context, dep *instance, manual bool) error {
	if !dep.sup.Status().State.Up() {
		if err := dep.sup.Start(manual); err != nil && !errors.Is(err, supervise.ErrAlreadyRunning) {
			return err
		}
	}
	st, err := waitStatus(ctx, dep.sup, dependencyWait, settled)
	if err != nil {
		return err
	}
	if st.State != wire.StateRunning {
		return fmt.Errorf("it is %s", st.State)
	}
	return nil
}

// dependencies lists inst's transitive dependencies in start order.
func (a *Agent) dependencies(inst *instance) []*instance {
	need := map[string]bool{}
	var visit func(id string)
	visit = func(id string) {
		d0 := a.lookup(id)
		if d0 == nil {
			return
		}
		for _, d := range d0.conf().DependsOn {
			if !need[d] {
				need[d] = true
				visit(d)
			}
		}
	}
	visit(inst.conf().ID)
	order, _ := a.cfg.StartOrder() // validated at load: no cycles
	var out []*instance
	for _, ic := range order {
		if dep := a.lookup(ic.ID); need[ic.ID] && dep != nil {
			out = append(out, dep)
		}
	}
	return out
}

// logsSpec decodes "lines" once; the ring buffer answers at once.
func logsSpec(inst *instance) spec {
	return func(req wire.Request) (call, error) {
		var args struct {
			Lines int `json:"lines"`
		}
		if err := req.Decode(&args); err != nil {
			return call{}, err
		}
		if args.Lines < 0 {
			return call{}, wire.Errorf(wire.CodeBadArgs, `"lines" must not be negative`)
		}
		if args.Lines == 0 {
			args.Lines = defaultLogsLines
		}
		if inst.sup == nil {
			return call{}, notManaged(inst)
		}
		return call{run: func(context.Context) (any, error) {
			return wire.LogsReply{Lines: inst.sup.Logs(args.Lines)}, nil
		}}, nil
	}
}

// sendSpec decodes the line once; writing it is quick unless the game does
// not read its input (then it gives up after 2 s: stdin_full).
func sendSpec(inst *instance) spec {
	return func(req wire.Request) (call, error) {
		var args struct {
			Command *string `json:"command"`
			Line    *string `json:"line"`
		}
		if err := req.Decode(&args); err != nil {
			return call{}, err
		}
		line := args.Command
		if line == nil {
			line = args.Line
		}
		if line == nil {
			return call{}, wire.Errorf(wire.CodeBadArgs, `send needs "command": the line to write to the console`)
		}
		if inst.sup == nil {
			return call{}, notManaged(inst)
		}
		return call{run: func(context.Context) (any, error) {
			if err := inst.sup.Send(*line); err != nil {
				return nil, fmt.Errorf("send %s: %w", inst.conf().ID, err)
			}
			return nil, nil
		}}, nil
	}
}

func (a *Agent) uptimeSeconds() int64 { return int64(time.Since(a.started).Seconds()) }
