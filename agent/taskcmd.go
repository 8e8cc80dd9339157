package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corrosion/corrosion/agent/install"
	"github.com/corrosion/corrosion/agent/supervise"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/agent/wire"
)

// The provisioning tasks (issue 19; docs/agent.md "Install and update"):
// install, update_check, steam_update and oxide_install on an instance's
// cmd subject, run by agent/install. One task per instance at a time
// (busy otherwise); agent/install lets one steamcmd run at a time per host.
// Progress goes to the instance's console as agent lines; the end is a
// status event carrying wire.TaskResult.

// maxWarnSeconds is steam_update's and oxide_install's warn_seconds at
// most.
const maxWarnSeconds = 3600

// taskFunc is one task's work.
type taskFunc func(ctx context.Context, job install.Job) (install.Result, error)

// taskSpec is the spec of the long tasks install, steam_update and
// oxide_install: checked and claimed at once, answered with TaskReply,
// run on their own goroutine.
func (a *Agent) taskSpec(inst *instance, name string) spec {
	return func(req wire.Request) (call, error) {
		work, stopped, err := a.taskWork(inst, name, req)
		if err != nil {
			return call{}, err
		}
		job, err := a.claim(inst, name, stopped)
		if err != nil {
			return call{}, err
		}
		return call{run: func(ctx context.Context) (any, error) {
			go a.runTask(ctx, inst, name, job, work)
			return wire.TaskReply{Task: name}, nil
		}}, nil
	}
}

// taskWork decodes req and returns the task's work, and whether the game
// must be stopped already (install; oxide_install with no_restart) rather
// than stopped and started again by the task.
func (a *Agent) taskWork(inst *instance, name string, req wire.Request) (work taskFunc, stopped bool, err error) {
	in := a.tasks.in
	var su wire.SteamUpdateRequest
	var ox wire.OxideInstallRequest
	var args any
	var stop *wire.GameStop
	switch name {
	case wire.FuncSteamUpdate:
		args, stop = &su, &su.GameStop
	case wire.FuncOxideInstall:
		args, stop = &ox, &ox.GameStop
	default:
		return in.Install, true, nil
	}
	if err := req.Decode(args); err != nil {
		return nil, false, err
	}
	if stop.WarnSeconds < 0 || stop.WarnSeconds > maxWarnSeconds {
		return nil, false, &wire.Error{Code: wire.CodeBadArgs, Field: "warn_seconds",
			Msg: fmt.Sprintf("warn_seconds must be 0 to %d", maxWarnSeconds)}
	}
	warn := time.Duration(stop.WarnSeconds) * time.Second
	if name == wire.FuncSteamUpdate {
		opts := install.UpdateOptions{Force: su.Force, Warn: warn}
		return func(ctx context.Context, job install.Job) (install.Result, error) {
			return in.SteamUpdate(ctx, job, opts, a.gameHooks(inst, job.Spec.Console))
		}, false, nil
	}
	return func(ctx context.Context, job install.Job) (install.Result, error) {
		return in.OxideInstall(ctx, job, warn, a.gameHooks(inst, job.Spec.Console))
	}, ox.NoRestart, nil
}

// claim checks that inst may run task now and claims it: provisioning on,
// a template, managed, no other task; with stopped, the game must not be
// running.
func (a *Agent) claim(inst *instance, task string, stopped bool) (install.Job, error) {
	if err := a.provisioningOn(); err != nil {
		return install.Job{}, err
	}
	spec, root, ok := a.tasks.lookup(inst.conf().ID)
	if !ok || inst.sup == nil {
		return install.Job{}, wire.Errorf(wire.CodeNotProvisioned,
			"instance %s has no template (it is defined in agent.toml): %s needs an instance created from a template", inst.conf().ID, task)
	}
	if stopped {
		if st := inst.sup.Status(); gameActive(st) {
			return install.Job{}, wire.Errorf(wire.CodeInstanceRunning, "instance %s is %s%s; stop it before %s",
				inst.conf().ID, st.State, map[bool]string{true: " with a crash restart pending"}[st.RestartIn != nil], task)
		}
	}
	if err := a.tasks.begin(inst.conf().ID, task); err != nil {
		return install.Job{}, err
	}
	sup := inst.sup
	return install.Job{Spec: spec, Root: root, Progress: func(line string) {
		sup.Inject(wire.StreamAgent, []string{task + ": " + line})
	}}, nil
}

// runTask runs a claimed task to its end under the task deadline (and the
// agent's life: shutdown cancels it) and publishes its result.
func (a *Agent) runTask(ctx context.Context, inst *instance, name string, job install.Job, work taskFunc) {
	defer a.tasks.end(inst.conf().ID)
	ctx, cancel := context.WithTimeout(ctx, a.tasks.deadline)
	defer cancel()
	start := time.Now()
	job.Progress("started")
	res, err := work(ctx, job)
	tr := wire.TaskResult{Task: name, Result: wire.TaskOK, OldBuild: res.OldBuild, NewBuild: res.NewBuild,
		Seconds: time.Since(start).Seconds()}
	if err != nil {
		tr.Result, tr.Code, tr.Message = wire.TaskFailed, install.Code(err), taskMessage(ctx, err)
		job.Progress("failed: " + tr.Message)
		a.log.Warn("task failed", "instance", inst.conf().ID, "task", name, "code", tr.Code, "err", tr.Message)
	} else {
		job.Progress(fmt.Sprintf("done in %.1f s", tr.Seconds))
	}
	a.publishTask(inst, tr)
}

// taskMessage is err in words, saying when the deadline or a shutdown
// ended the task.
func taskMessage(ctx context.Context, err error) string {
	switch {
	case errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		return err.Error() + " (the task ran past its deadline)"
	case ctx.Err() != nil:
		return err.Error() + " (the agent is shutting down)"
	}
	return err.Error()
}

// publishTask publishes the status event that ends a task: the instance's
// state as it is, with the result.
func (a *Agent) publishTask(inst *instance, tr wire.TaskResult) {
	st := inst.sup.Status()
	ev := wire.StateEvent{State: st.State, PID: st.PID, CrashCount: st.CrashCount, Task: &tr, Message: tr.Message}
	inst.console.State(inst.conf().ID, ev)
}

// updateCheckSpec is update_check: a task too (busy rules, progress, the
// status event), answered with its result.
func (a *Agent) updateCheckSpec(inst *instance) spec {
	return func(wire.Request) (call, error) {
		job, err := a.claim(inst, wire.FuncUpdateCheck, false)
		if err != nil {
			return call{}, err
		}
		return call{blocking: true, run: func(ctx context.Context) (any, error) {
			var c install.Check
			var failed error
			a.runTask(ctx, inst, wire.FuncUpdateCheck, job, func(ctx context.Context, job install.Job) (install.Result, error) {
				if c, failed = a.tasks.in.UpdateCheck(ctx, job); failed == nil {
					a.tasks.saw(inst.conf().ID, c.Available)
				}
				return install.Result{OldBuild: c.Installed, NewBuild: c.Available}, failed
			})
			if failed != nil {
				return nil, wire.Errorf(wire.CodeTaskFailed, "update check of %s: %s (%s)", inst.conf().ID, failed.Error(), install.Code(failed))
			}
			return wire.UpdateCheckReply{AppID: c.App, Branch: c.Branch, InstalledBuild: c.Installed,
				AvailableBuild: c.Available, UpdateAvailable: c.UpdateAvailable, Partial: c.HalfFinished}, nil
		}}, nil
	}
}

// gameActive: the game runs, is coming up or going down, or a crash
// restart is pending (it would start in the middle of a task).
func gameActive(st supervise.Status) bool {
	return st.State.Up() || st.State == wire.StateStopping || st.RestartIn != nil
}

// gameHooks are steam_update's and oxide_install's ways to the game:
// warn with the template's broadcast command (c.BroadcastCommand; none:
// no Warn, the players are not warned) through RCON when the instance has
// it, else its console input; stop and start through the supervisor.
func (a *Agent) gameHooks(inst *instance, c template.ConsoleSpec) install.Hooks {
	h := install.Hooks{
		Running: func() bool { return gameActive(inst.sup.Status()) },
		Stop: func(ctx context.Context) error {
			if err := inst.sup.Stop(); err != nil {
				return err
			}
			_, err := waitStatus(ctx, inst.sup, defaultWait+inst.conf().StopTimeout(), settled)
			return err
		},
		Start: func(ctx context.Context) error { return a.startWithDeps(ctx, inst, true) },
	}
	if c.Broadcast == "" {
		return h
	}
	h.Warn = func(ctx context.Context, text string) error {
		cmd, _ := c.BroadcastCommand(text)
		if rc := inst.rcon.Load(); rc != nil {
			conn, err := rc.get()
			if err != nil {
				return err
			}
			_, err = conn.Exec(ctx, cmd)
			return err
		}
		return inst.sup.Send(cmd)
	}
	return h
}
