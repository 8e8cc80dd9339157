package steam

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Defaults of a Runner's zero fields.
const (
	DefaultLimit    = time.Hour
	DefaultAttempts = 4
	maxLineBytes    = 4096      // a longer output line is handed on in pieces
	maxKeptLine     = 256 << 10 // of a longer output line, only the start is kept
)

// Runner runs steamcmd directly (no shell, no pipe through tee): its own
// exit code, a wall-clock limit per run that kills steamcmd's whole
// process group, every output line to a callback, and retries with
// backoff on the states worth retrying (docs/steam.md has the table).
// A Runner is safe for concurrent use; the caller decides how many
// steamcmd runs it allows at once.
type Runner struct {
	Path     string                        // steamcmd's executable (steamcmd.sh, steamcmd.exe)
	Home     string                        // steamcmd's directory holding appcache/; "" is Path's directory
	Limit    time.Duration                 // wall-clock limit of one run; 0 is DefaultLimit
	Attempts int                           // runs at most per call; 0 is DefaultAttempts
	Backoff  func(retry int) time.Duration // the wait before retry n (1, 2, …); nil is 5 s doubling to 1 min
	Env      []string                      // steamcmd's environment; nil is this process's
	Log      *slog.Logger                  // nil: slog.Default()
}

// UpdateRequest is one app_update.
type UpdateRequest struct {
	Dir          string // the install root (force_install_dir), absolute
	App          string // the app id
	Beta         string // a beta branch; "" is public
	BetaPassword string // the beta's password, if it has one; never logged
	Validate     bool   // check every file (slow)
	Platform     string // "windows" or "linux" to force the platform's build; "" is this host's
	WantBuild    string // when set, the build the manifest must show afterwards
}

// betaPattern is what a branch name looks like.
var betaPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Args is steamcmd's argv (without the program) for req:
// +force_install_dir DIR +login anonymous +app_update APP [-beta B
// [-betapassword P]] [validate] +quit. It refuses what steamcmd would
// misread; no error message holds the password.
func (req UpdateRequest) Args() ([]string, error) {
	if err := CheckAppID(req.App); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(req.Dir) || strings.ContainsAny(req.Dir, "\r\n\x00") {
		return nil, fmt.Errorf("install directory %q is not an absolute path", req.Dir)
	}
	if req.Beta != "" && !betaPattern.MatchString(req.Beta) {
		return nil, fmt.Errorf("beta branch %q is not a branch name (letters, digits, _ . -)", req.Beta)
	}
	if req.BetaPassword != "" && (req.Beta == "" || req.BetaPassword[0] == '+' || req.BetaPassword[0] == '-' ||
		strings.ContainsAny(req.BetaPassword, " \t\r\n\"\x00")) {
		return nil, errors.New("beta password refused: it needs a beta branch and may not start with + or -, nor hold blanks or quotes")
	}
	if req.Platform != "" && req.Platform != "linux" && req.Platform != "windows" {
		return nil, fmt.Errorf("platform %q is neither linux nor windows", req.Platform)
	}
	var args []string
	if req.Platform != "" {
		args = append(args, "+@sSteamCmdForcePlatformType", req.Platform)
	}
	args = append(args, "+force_install_dir", req.Dir, "+login", "anonymous", "+app_update", req.App)
	if req.Beta != "" {
		args = append(args, "-beta", req.Beta)
		if req.BetaPassword != "" {
			args = append(args, "-betapassword", req.BetaPassword)
		}
	}
	if req.Validate {
		args = append(args, "validate")
	}
	return append(args, "+quit"), nil
}

// AppInfoArgs is steamcmd's argv for reading app's current builds.
func AppInfoArgs(app string) []string {
	return []string{"+login", "anonymous", "+app_info_update", "1", "+app_info_print", app, "+quit"}
}

// Update runs app_update for req, retrying as the table says, and returns
// the manifest steamcmd left: success is exit 0, no error line, AND a
// re-read manifest showing one complete build (req.WantBuild when set).
// Every output line goes to onLine (nil: dropped), the beta password
// masked; onLine is called from one goroutine at a time, and never after
// Update returns. Errors are *Error.
func (r *Runner) Update(ctx context.Context, req UpdateRequest, onLine func(string)) (Manifest, error) {
	args, err := req.Args()
	if err != nil {
		return Manifest{}, &Error{Code: CodeFailed, Msg: "steam update: " + err.Error(), Exit: -1, Err: err}
	}
	var m Manifest
	err = r.retry(ctx, args, []string{req.BetaPassword}, onLine, func(_ []byte, attempts int) *Error {
		var rerr error
		m, rerr = Installed(req.Dir, req.App)
		switch {
		case rerr != nil:
			return &Error{Code: CodeFailed, Exit: 0, Attempts: attempts, Err: rerr,
				Msg: fmt.Sprintf("steamcmd reported success but the manifest is unreadable: %v", rerr)}
		case m.HalfFinished():
			return &Error{Code: CodeFailed, Exit: 0, Attempts: attempts,
				Msg: fmt.Sprintf("steamcmd reported success but the manifest shows a half-finished download (StateFlags %d, %d of %d bytes)", m.StateFlags, m.BytesDownloaded, m.BytesToDownload)}
		case req.WantBuild != "" && m.BuildID != req.WantBuild:
			return &Error{Code: CodeFailed, Exit: 0, Attempts: attempts,
				Msg: fmt.Sprintf("steamcmd reported success but the manifest shows build %s, not %s", m.BuildID, req.WantBuild)}
		}
		return nil
	})
	return m, err
}

// AppInfo asks Steam for app's branches and builds, after removing
// steamcmd's cached appcache/appinfo.vdf (steamcmd prints stale builds
// from it otherwise). Errors are *Error.
func (r *Runner) AppInfo(ctx context.Context, app string, onLine func(string)) (AppInfo, error) {
	if err := CheckAppID(app); err != nil {
		return AppInfo{}, &Error{Code: CodeFailed, Msg: "steam app info: " + err.Error(), Exit: -1, Err: err}
	}
	cache := filepath.Join(r.home(), "appcache", "appinfo.vdf")
	if err := os.Remove(cache); err != nil && !errors.Is(err, os.ErrNotExist) {
		return AppInfo{}, &Error{Code: CodeFailed, Msg: fmt.Sprintf("remove steamcmd's stale appcache/appinfo.vdf: %v", errnoOnly(err)), Exit: -1, Err: err}
	}
	var ai AppInfo
	err := r.retry(ctx, AppInfoArgs(app), nil, onLine, func(out []byte, attempts int) *Error {
		var perr error
		if ai, perr = ParseAppInfo(out, app); perr != nil {
			return &Error{Code: CodeFailed, Msg: perr.Error(), Exit: 0, Attempts: attempts, Err: perr}
		}
		return nil
	})
	return ai, err
}

// Check is an update check's answer.
type Check struct {
	Installed       string // the installed build; "" when not installed
	Available       string // the branch's current build on Steam
	UpdateAvailable bool   // not installed, half-finished, or a different build
	HalfFinished    bool   // the manifest shows an unfinished download
}

// UpdateCheck compares app's installed build under root with the current
// build of branch ("" is public) on Steam.
func (r *Runner) UpdateCheck(ctx context.Context, root, app, branch string, onLine func(string)) (Check, error) {
	var c Check
	m, err := Installed(root, app)
	switch {
	case errors.Is(err, ErrNotInstalled):
	case err != nil:
		return Check{}, &Error{Code: CodeFailed, Msg: err.Error(), Exit: -1, Err: err}
	default:
		c.Installed, c.HalfFinished = m.BuildID, m.HalfFinished()
	}
	ai, err := r.AppInfo(ctx, app, onLine)
	if err != nil {
		return Check{}, err
	}
	if branch == "" {
		branch = "public"
	}
	b, ok := ai.Branches[branch]
	if !ok || b.BuildID == "" {
		return Check{}, &Error{Code: CodeNoBranch, Exit: 0,
			Msg: fmt.Sprintf("app %s has no branch %q on Steam (it has %s)", app, branch, strings.Join(ai.BranchNames(), ", "))}
	}
	c.Available = b.BuildID
	c.UpdateAvailable = c.Installed == "" || c.HalfFinished || c.Installed != c.Available
	return c, nil
}

func (r *Runner) home() string {
	if r.Home != "" {
		return r.Home
	}
	return filepath.Dir(r.Path)
}

func (r *Runner) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

// backoff is the wait before retry n.
func (r *Runner) backoff(n int) time.Duration {
	if r.Backoff != nil {
		return r.Backoff(n)
	}
	return min(5*time.Second<<(n-1), time.Minute)
}

// retry runs steamcmd with args until a run succeeds (its verdict clean
// and confirm returning nil), fails for good, or the attempts run out.
func (r *Runner) retry(ctx context.Context, args, secrets []string, onLine func(string), confirm func(out []byte, attempts int) *Error) error {
	attempts := r.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	for n := 1; ; n++ {
		out, exit, v, err := r.run(ctx, args, secrets, onLine)
		if err != nil {
			err.Attempts = n
			return err
		}
		if v.code == "" {
			if e := confirm(out, n); e != nil {
				return e
			}
			return nil
		}
		msg := "steamcmd: " + v.why
		if v.line != "" {
			msg += ": " + strings.TrimSpace(v.line)
		}
		if !v.retry || n >= attempts {
			if v.retry {
				msg = fmt.Sprintf("%s (after %d attempts)", msg, n)
			}
			return &Error{Code: v.code, Msg: msg, Exit: exit, Attempts: n}
		}
		wait := r.backoff(n)
		r.log().Warn("steamcmd: retrying", "why", v.why, "exit", exit, "attempt", n, "wait", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return &Error{Code: CodeCanceled, Msg: "steamcmd: canceled while waiting to retry after: " + v.why, Exit: exit, Attempts: n, Err: ctx.Err()}
		case <-t.C:
		}
	}
}
