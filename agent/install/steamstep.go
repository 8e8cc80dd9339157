package install

import (
	"context"
	"strconv"

	"github.com/corrosion/corrosion/agent/steam"
	"github.com/corrosion/corrosion/agent/template"
)

// steamSource runs a steamcmd step: app_update of the app, then of each
// extra app, into the root. validate follows the step's mode: install_only
// on the first install only.
func (in *Installer) steamSource(ctx context.Context, job *Job, s *template.SteamCMD, kind runKind) error {
	validate := s.Validate == template.ValidateAlways || (s.Validate == template.ValidateInstallOnly && kind == installRun)
	apps := append([]int{s.AppID}, s.ExtraApps...)
	for i, app := range apps {
		req := steam.UpdateRequest{Dir: job.Root, App: appID(app), Validate: validate, Platform: string(s.Platform)}
		if i == 0 {
			req.Beta, req.BetaPassword = s.Branch, s.BetaPassword
		}
		branch := req.Beta
		if branch == "" {
			branch = "public"
		}
		job.say("steamcmd: app_update %s (branch %s%s)", req.App, branch, map[bool]string{true: ", validate"}[validate])
		var m steam.Manifest
		err := in.withSteam(ctx, job, func(r *steam.Runner) error {
			var err error
			m, err = r.Update(ctx, req, job.Progress)
			return err
		})
		if err != nil {
			return err
		}
		job.say("steamcmd: app %s is at build %s", req.App, m.BuildID)
	}
	return nil
}

// withSteam runs fn with the host's steamcmd when it is this task's turn:
// one steamcmd run at a time per host; a task that waits says so.
func (in *Installer) withSteam(ctx context.Context, job *Job, fn func(r *steam.Runner) error) error {
	if in.steam == nil {
		return &Error{Code: CodeNoSteamCMD, Msg: "this host has no steamcmd configured"}
	}
	select {
	case in.steamTurn <- struct{}{}:
	default:
		job.say("waiting for another steamcmd run on this host to finish")
		select {
		case in.steamTurn <- struct{}{}:
		case <-ctx.Done():
			return &Error{Code: CodeCanceled, Msg: "canceled while waiting for steamcmd", Err: ctx.Err()}
		}
	}
	defer func() { <-in.steamTurn }()
	return fn(in.steam)
}

// steamSource is the spec's first steamcmd step, the game; nil if none.
func steamSource(s template.Spec) *template.SteamCMD {
	for _, src := range s.Sources {
		if src.SteamCMD != nil {
			return src.SteamCMD
		}
	}
	return nil
}

// SteamApp is the app id of the spec's game (its first steamcmd step), ""
// when it installs no Steam app.
func SteamApp(s template.Spec) string {
	if src := steamSource(s); src != nil {
		return appID(src.AppID)
	}
	return ""
}

func appID(n int) string { return strconv.Itoa(n) }
