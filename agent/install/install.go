// Package install runs a rendered template's install steps into an
// instance root: SteamCMD app updates (through agent/steam), http downloads
// checked against their SHA-256, GitHub release assets, archives unpacked
// by agent/files' extractor, and the template's config file edits. It also
// checks for and applies game updates, reapplying the steps a game update
// overwrites (Oxide, Carbon). It speaks no NATS: the agent wires it to the
// instance funcs install, update_check, steam_update and oxide_install.
package install

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/corrosion/corrosion/agent/files"
	"github.com/corrosion/corrosion/agent/steam"
	"github.com/corrosion/corrosion/agent/template"
)

// DefaultGitHubAPI is the GitHub REST API a github_release step asks for a
// repository's latest release.
const DefaultGitHubAPI = "https://api.github.com"

// DefaultMaxDownload is the largest download a step accepts.
const DefaultMaxDownload = 4 << 30

// Installer runs install and update tasks. One Installer serves a host: it
// lets one SteamCMD run at a time (a second waits, saying so on its
// progress). It is safe for concurrent use on different roots; the caller
// runs one task per root at a time.
type Installer struct {
	steam       *steam.Runner // nil: a steamcmd step fails with CodeNoSteamCMD; immutable after New
	githubAPI   string        // immutable after New
	client      *http.Client  // immutable after New
	maxDownload int64         // immutable after New
	extract     files.Limits  // immutable after New
	log         *slog.Logger  // immutable after New

	steamTurn chan struct{} // holds a token while a SteamCMD run goes on
}

// Options configure an Installer. Zero fields take defaults.
type Options struct {
	Steam       *steam.Runner // the host's steamcmd; nil when it has none
	GitHubAPI   string        // DefaultGitHubAPI when ""; tests point it at a local server
	Client      *http.Client  // http.DefaultClient when nil
	MaxDownload int64         // DefaultMaxDownload when 0
	Extract     files.Limits  // limits of an archive (files.DefaultLimits for zero fields)
	Log         *slog.Logger  // discarded when nil
}

// New returns an Installer.
func New(o Options) *Installer {
	in := &Installer{steam: o.Steam, githubAPI: o.GitHubAPI, client: o.Client, maxDownload: o.MaxDownload,
		extract: o.Extract, log: o.Log, steamTurn: make(chan struct{}, 1)}
	if in.githubAPI == "" {
		in.githubAPI = DefaultGitHubAPI
	}
	if in.client == nil {
		in.client = http.DefaultClient
	}
	if in.maxDownload <= 0 {
		in.maxDownload = DefaultMaxDownload
	}
	if in.log == nil {
		in.log = slog.New(slog.DiscardHandler)
	}
	return in
}

// Job is one task's instance: its rendered spec, its root and where its
// progress lines go.
type Job struct {
	Spec     template.Spec
	Root     string            // the instance root, absolute; created when missing
	Progress func(line string) // nil: dropped; called from one goroutine at a time
}

func (j *Job) say(format string, args ...any) {
	if j.Progress != nil {
		j.Progress(fmt.Sprintf(format, args...))
	}
}

// Result is what a task did.
type Result struct {
	OldBuild string // the game's build before (steam templates)
	NewBuild string // the game's build after
	Updated  bool   // steam_update: the game was updated
	Started  bool   // steam_update: the game was started again
}

// Install runs the spec's source steps in order (Render has dropped those
// whose condition is false), then its config file edits. A step that fails
// leaves nothing of itself in the root (see docs/templates.md "Install and
// update" for steamcmd); the steps before it stay.
func (in *Installer) Install(ctx context.Context, job Job) (Result, error) {
	start := time.Now()
	if err := prepareRoot(job.Root); err != nil {
		return Result{}, err
	}
	for i := range job.Spec.Sources {
		if err := in.source(ctx, &job, i, installRun); err != nil {
			return Result{}, err
		}
	}
	if err := ApplyConfigs(job.Root, job.Spec.Configs); err != nil {
		return Result{}, err
	}
	var res Result
	if s := steamSource(job.Spec); s != nil {
		if m, err := steam.Installed(job.Root, appID(s.AppID)); err == nil {
			res.NewBuild = m.BuildID
		}
	}
	job.say("install finished in %s", time.Since(start).Round(time.Millisecond))
	return res, nil
}

// runKind says why a step runs.
type runKind int

const (
	installRun runKind = iota // the first install (validate = install_only applies)
	updateRun                 // a game update or a reapply
)

// source runs step i of the spec.
func (in *Installer) source(ctx context.Context, job *Job, i int, kind runKind) error {
	src := job.Spec.Sources[i]
	switch {
	case src.SteamCMD != nil:
		return in.steamSource(ctx, job, src.SteamCMD, kind)
	case src.HTTP != nil:
		return in.httpSource(ctx, job, src.HTTP)
	case src.GitHubRelease != nil:
		return in.releaseSource(ctx, job, src.GitHubRelease)
	}
	return &Error{Code: CodeFailed, Msg: fmt.Sprintf("source %d has no step", i)}
}

// prepareRoot creates the instance root when it is missing.
func prepareRoot(root string) error {
	if !filepath.IsAbs(root) {
		return &Error{Code: CodeFailed, Msg: fmt.Sprintf("instance root %q is not absolute", root)}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fsError("create the instance root", err)
	}
	return nil
}

// Error is a failed task: a stable Code (install's own below, or one of
// agent/steam's) and a message in words.
type Error struct {
	Code string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Err }

// Codes of install's own errors; a steamcmd failure keeps agent/steam's
// code (steam_disk_full, steam_timeout, …).
const (
	CodeSHA256Mismatch = "install_sha256_mismatch" // a download's checksum is not the template's (or GitHub's)
	CodeCorruptArchive = "install_corrupt_archive" // the archive cannot be read
	CodeUnsafeArchive  = "install_unsafe_archive"  // an entry would leave its directory, or is a link or device
	CodeDiskFull       = "install_disk_full"       // no space left while writing
	CodeDownload       = "install_download_failed" // the server refused, the connection failed, too large
	CodeNoAsset        = "install_no_asset"        // the latest release has no asset of that name
	CodeConflict       = "install_conflict"        // a file would replace a directory, or the reverse
	CodeNoSteam        = "install_no_steam"        // update_check/steam_update on a template without steamcmd
	CodeNoSteamCMD     = "install_no_steamcmd"     // the host has no steamcmd configured
	CodeNoFramework    = "install_no_framework"    // oxide_install with FRAMEWORK vanilla (no framework step)
	CodeStop           = "install_stop_failed"     // the graceful stop before an update failed
	CodeStart          = "install_start_failed"    // the start after an update failed
	CodeCanceled       = "install_canceled"        // the task was canceled (deadline, agent shutdown)
	CodeFailed         = "install_failed"          // anything else
)

// Code is err's stable code: install's, agent/steam's, or CodeFailed.
func Code(err error) string {
	var ie *Error
	var se *steam.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ie):
		return ie.Code
	case errors.As(err, &se):
		return se.Code
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return CodeCanceled
	}
	return CodeFailed
}
