package install

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/corrosion/corrosion/agent/steam"
	"github.com/corrosion/corrosion/agent/template"
)

// Check is update_check's answer for the spec's game.
type Check struct {
	App    string // the steam app id
	Branch string // "public" or the beta
	steam.Check
}

// UpdateCheck compares the game's installed build (its appmanifest) with
// the branch's current build on Steam (steamcmd app_info_print, after
// removing the stale appinfo.vdf): agent/steam's UpdateCheck, in turn with
// the host's other steamcmd runs.
func (in *Installer) UpdateCheck(ctx context.Context, job Job) (Check, error) {
	s := steamSource(job.Spec)
	if s == nil {
		return Check{}, &Error{Code: CodeNoSteam, Msg: fmt.Sprintf("template %s installs no Steam app: nothing to check", job.Spec.TemplateID)}
	}
	c := Check{App: appID(s.AppID), Branch: s.Branch}
	if c.Branch == "" {
		c.Branch = "public"
	}
	err := in.withSteam(ctx, &job, func(r *steam.Runner) error {
		var err error
		c.Check, err = r.UpdateCheck(ctx, job.Root, c.App, s.Branch, job.Progress)
		return err
	})
	return c, err
}

// Hooks are what steam_update and OxideInstall need of the instance's
// supervisor. Nil funcs are skipped (Running nil: not running; Warn nil:
// the game cannot tell its players, the warning's wait still happens).
type Hooks struct {
	Running func() bool                                  // is the game running now
	Warn    func(ctx context.Context, text string) error // tell the players (console or RCON)
	Stop    func(ctx context.Context) error              // the graceful stop
	Start   func(ctx context.Context) error              // start it again
}

// UpdateOptions are steam_update's request.
type UpdateOptions struct {
	Force bool          // update even when the build is current
	Warn  time.Duration // how long players are warned before the stop
}

// SteamUpdate updates the game when a newer build is available (or always
// with Force): warn the players and wait opts.Warn, stop it gracefully,
// app_update (retried as agent/steam classifies), confirm the new build in
// the re-read manifest, reapply the after_game_update steps, and start it
// again if it was running. A failed update leaves the game stopped.
func (in *Installer) SteamUpdate(ctx context.Context, job Job, opts UpdateOptions, hooks Hooks) (Result, error) {
	s := steamSource(job.Spec)
	if s == nil {
		return Result{}, &Error{Code: CodeNoSteam, Msg: fmt.Sprintf("template %s installs no Steam app: nothing to update", job.Spec.TemplateID)}
	}
	if err := prepareRoot(job.Root); err != nil {
		return Result{}, err
	}
	var res Result
	if m, err := steam.Installed(job.Root, appID(s.AppID)); err == nil {
		res.OldBuild = m.BuildID
	}
	if !opts.Force {
		c, err := in.UpdateCheck(ctx, job)
		if err != nil {
			return res, err
		}
		if !c.UpdateAvailable {
			job.say("build %s is the current build of %s: nothing to update", c.Installed, c.Branch)
			res.NewBuild = c.Installed
			return res, nil
		}
		job.say("update available: build %s → %s", orNone(c.Installed), c.Available)
	}
	var err error
	res.Started, err = withGameStopped(ctx, &job, opts.Warn, "a game update", hooks, func() error {
		return in.updateGame(ctx, &job, &res)
	})
	return res, err
}

// withGameStopped runs work with the game stopped: when it runs, the
// players are warned (why says what for), warn later it is stopped
// gracefully, and after work it is started again (started says so). A
// failed work leaves it stopped.
func withGameStopped(ctx context.Context, job *Job, warn time.Duration, why string, hooks Hooks, work func() error) (started bool, err error) {
	wasRunning := hooks.Running != nil && hooks.Running()
	if wasRunning {
		if err := warnAndStop(ctx, job, warn, why, hooks); err != nil {
			return false, err
		}
	}
	if err := work(); err != nil {
		return false, err
	}
	if !wasRunning || hooks.Start == nil {
		return false, nil
	}
	job.say("starting the game again")
	if err := hooks.Start(ctx); err != nil {
		return false, &Error{Code: CodeStart, Msg: fmt.Sprintf("start after %s: %v", why, err), Err: err}
	}
	return true, nil
}

// updateGame runs the steamcmd steps as an update, confirms the build and
// reapplies the after_game_update steps.
func (in *Installer) updateGame(ctx context.Context, job *Job, res *Result) error {
	for i, src := range job.Spec.Sources {
		if src.SteamCMD != nil {
			if err := in.source(ctx, job, i, updateRun); err != nil {
				return err
			}
		}
	}
	m, err := steam.Installed(job.Root, appID(steamSource(job.Spec).AppID))
	if err != nil {
		return &Error{Code: CodeFailed, Msg: fmt.Sprintf("confirm the update: %v", err), Err: err}
	}
	res.NewBuild, res.Updated = m.BuildID, true
	job.say("game updated: build %s → %s", orNone(res.OldBuild), res.NewBuild)
	return in.reapply(ctx, job)
}

// warnAndStop warns the players (when hooks.Warn can: the game has a way
// to tell them), waits warn all the same, and stops the game for why.
func warnAndStop(ctx context.Context, job *Job, warn time.Duration, why string, hooks Hooks) error {
	if warn > 0 {
		secs := int(math.Ceil(warn.Seconds()))
		text := fmt.Sprintf("The server restarts for %s in %d %s.", why, secs, map[bool]string{true: "second", false: "seconds"}[secs == 1])
		if hooks.Warn == nil {
			job.say("the game has no broadcast command: the players are not warned; stopping in %s", warn)
		} else {
			job.say("warning the players: %s", text)
			if err := hooks.Warn(ctx, text); err != nil {
				job.say("could not warn the players: %v", err) // the update goes on
			}
		}
		t := time.NewTimer(warn)
		select {
		case <-ctx.Done():
			t.Stop()
			return &Error{Code: CodeCanceled, Msg: "canceled while warning the players; the game was not stopped", Err: ctx.Err()}
		case <-t.C:
		}
	}
	if hooks.Stop == nil {
		return nil
	}
	job.say("stopping the game")
	if err := hooks.Stop(ctx); err != nil {
		return &Error{Code: CodeStop, Msg: fmt.Sprintf("stop before %s: %v", why, err), Err: err}
	}
	return nil
}

// reapply runs again the steps a game update overwrites (github_release
// with reapply = after_game_update).
func (in *Installer) reapply(ctx context.Context, job *Job) error {
	for i, src := range job.Spec.Sources {
		if g := src.GitHubRelease; g != nil && g.Reapply == template.ReapplyAfterGameUpdate {
			job.say("reapplying %s after the game update", g.Repo)
			if err := in.source(ctx, job, i, updateRun); err != nil {
				return err
			}
		}
	}
	return nil
}

// FrameworkVariable is the variable of the built-in rust template choosing
// the mod framework.
const FrameworkVariable = "FRAMEWORK"

// OxideInstall installs the mod framework FRAMEWORK names (oxide or
// carbon): the spec's github_release steps reapplied after game updates,
// which Render kept because their condition on FRAMEWORK holds. A running
// game is warned (warn before the stop), stopped gracefully, and started again after
// the install, as for a game update (hooks; the caller refuses a running
// game when the request says no restart). Without a framework step it
// fails before touching the game.
func (in *Installer) OxideInstall(ctx context.Context, job Job, warn time.Duration, hooks Hooks) (Result, error) {
	if err := prepareRoot(job.Root); err != nil {
		return Result{}, err
	}
	var steps []int
	for i, src := range job.Spec.Sources {
		if g := src.GitHubRelease; g != nil && g.Reapply == template.ReapplyAfterGameUpdate {
			steps = append(steps, i)
		}
	}
	if len(steps) == 0 {
		fw, ok := job.Spec.Values[FrameworkVariable]
		msg := fmt.Sprintf("template %s has no mod framework step", job.Spec.TemplateID)
		if ok {
			msg = fmt.Sprintf("%s is %q: no mod framework to install (set it to oxide or carbon first)", FrameworkVariable, fw)
		}
		return Result{}, &Error{Code: CodeNoFramework, Msg: msg}
	}
	var res Result
	var err error
	res.Started, err = withGameStopped(ctx, &job, warn, "a mod framework install", hooks, func() error {
		for _, i := range steps {
			if err := in.source(ctx, &job, i, updateRun); err != nil {
				return err
			}
		}
		job.say("mod framework %s installed", job.Spec.Values[FrameworkVariable])
		return nil
	})
	return res, err
}

func orNone(build string) string {
	if build == "" {
		return "(none)"
	}
	return build
}
