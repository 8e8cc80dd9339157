package steam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/corrosion/corrosion/internal/childproc"
	"github.com/corrosion/corrosion/internal/redact"
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

// mask hides each secret in s.
func mask(s string, secrets []string) string {
	for _, x := range secrets {
		if x != "" {
			s = strings.ReplaceAll(s, x, redact.Mark)
		}
	}
	return s
}

// run runs steamcmd once: its output (the first MaxVDFBytes, secrets
// masked), exit code and verdict, or an *Error when it could not start,
// hit the limit or was canceled (its process group killed then).
func (r *Runner) run(ctx context.Context, args, secrets []string, onLine func(string)) ([]byte, int, verdict, *Error) {
	limit := r.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = mask(a, secrets)
	}
	r.log().Info("steamcmd: run", "path", r.Path, "args", strings.Join(shown, " "), "limit", limit)

	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, -1, verdict{}, &Error{Code: CodeFailed, Msg: fmt.Sprintf("steamcmd: output pipe: %v", err), Exit: -1, Err: err}
	}
	defer pr.Close()
	cmd := exec.Command(r.Path, args...)
	cmd.Dir = r.home()
	cmd.Env = r.Env
	cmd.Stdout, cmd.Stderr = pw, pw
	g, err := childproc.StartGroup(cmd)
	pw.Close()
	if err != nil {
		return nil, -1, verdict{}, &Error{Code: CodeFailed, Msg: fmt.Sprintf("start %s: %v", filepath.Base(r.Path), errnoOnly(err)), Exit: -1, Err: err}
	}
	defer g.Close()

	var (
		sink = newLineSink(secrets, onLine)
		read sync.WaitGroup
	)
	read.Add(1)
	go func() {
		defer read.Done()
		eachLine(pr, sink.line)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-waited:
	case <-rctx.Done():
		if kerr := g.Kill(); kerr != nil {
			r.log().Error("steamcmd: kill its process group", "err", kerr)
		}
		<-waited
		drain(&read, pr)
		if ctx.Err() != nil {
			return nil, -1, verdict{}, &Error{Code: CodeCanceled, Msg: "steamcmd: canceled; it was killed", Exit: -1, Err: ctx.Err()}
		}
		return nil, -1, verdict{}, &Error{Code: CodeTimeout, Exit: -1, Err: context.DeadlineExceeded,
			Msg: fmt.Sprintf("steamcmd ran longer than its limit of %s and was killed with its process group", limit)}
	}
	drain(&read, pr)
	exit := cmd.ProcessState.ExitCode()
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return nil, -1, verdict{}, &Error{Code: CodeFailed, Msg: fmt.Sprintf("steamcmd: %v", werr), Exit: -1, Err: werr}
	}
	r.log().Info("steamcmd: exited", "exit", exit)
	return sink.out.Bytes(), exit, sink.scan.verdict(exit), nil
}

// lineSink takes steamcmd's output lines: it masks the secrets, keeps
// the output for the parsers (the first MaxVDFBytes), classifies each
// line and hands it on in pieces of at most maxLineBytes. Fed by one
// goroutine; read after it is done.
type lineSink struct {
	secrets []string
	guard   int // the longest secret: how much of a cut line's end may hold part of one
	onLine  func(string)
	scan    scan
	out     bytes.Buffer
}

func newLineSink(secrets []string, onLine func(string)) *lineSink {
	k := &lineSink{secrets: secrets, onLine: onLine}
	for _, x := range secrets {
		k.guard = max(k.guard, len(x))
	}
	return k
}

// line takes one line; cut says its end was dropped, which may have cut
// a secret in two: the part that could hold its start is dropped too.
func (k *lineSink) line(line string, cut bool) {
	line = mask(line, k.secrets)
	if cut {
		line = runePrefix(line, len(line)-k.guard) + " [line cut]"
	}
	k.scan.line(line)
	if k.out.Len()+len(line)+1 <= MaxVDFBytes {
		k.out.WriteString(line)
		k.out.WriteByte('\n')
	}
	for k.onLine != nil && line != "" {
		piece := runePrefix(line, maxLineBytes)
		if piece == "" { // no rune start in reach (not UTF-8): the rest whole
			piece = line
		}
		k.onLine(piece)
		line = line[len(piece):]
	}
}

// drain waits for the output reader to reach the end of the pipe; a
// helper steamcmd left behind holding the pipe open does not hold it
// longer than drainWait: the pipe is closed under it.
func drain(read *sync.WaitGroup, pr *os.File) {
	done := make(chan struct{})
	go func() { read.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainWait):
		pr.Close()
		<-done
	}
}

// drainWait is how long output may trail steamcmd's exit.
const drainWait = 5 * time.Second

// eachLine hands every line of r to f: a line ends at \n or \r (a
// progress line steamcmd rewrites) and is at most maxKeptLine bytes, the
// rest of a longer one dropped (cut true). Empty lines are dropped. It
// returns at EOF or a read error, after handing on an unterminated last
// line.
func eachLine(r io.Reader, f func(line string, cut bool)) {
	buf := make([]byte, 32<<10)
	var line []byte
	cut := false
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		for len(chunk) > 0 {
			i := bytes.IndexAny(chunk, "\r\n")
			part := chunk
			if i >= 0 {
				part = chunk[:i]
			}
			if room := maxKeptLine - len(line); len(part) > room {
				part, cut = part[:room], true
			}
			line = append(line, part...)
			if i < 0 {
				break
			}
			if len(line) > 0 {
				f(string(line), cut)
			}
			line, cut = line[:0], false
			chunk = chunk[i+1:]
		}
		if err != nil {
			if len(line) > 0 {
				f(string(line), cut)
			}
			return
		}
	}
}

// runePrefix is s cut to at most n bytes, on a rune boundary.
func runePrefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
