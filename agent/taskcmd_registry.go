package agent

import (
	"log/slog"
	"sync"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/install"
	"github.com/corrosion/corrosion/agent/steam"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/agent/wire"
)

// The registry of the provisioning tasks (taskcmd.go runs them): which
// task runs on which instance (one at a time), the builds update_check
// saw, and the host's installer.

// defaultTaskDeadline bounds a whole task, retries included.
const defaultTaskDeadline = 3 * time.Hour

// provisionLookup returns an instance's rendered template and root; ok is
// false for an instance without a template (one of agent.toml's).
type provisionLookup func(id string) (spec template.Spec, root string, ok bool)

// tasks runs the provisioning tasks of one agent.
type tasks struct {
	in       *install.Installer // immutable after newTasks
	lookup   provisionLookup    // immutable after newTasks
	deadline time.Duration      // immutable after newTasks
	log      *slog.Logger       // immutable

	mu        sync.Mutex
	running   map[string]string // instance id -> the task running on it; guarded by mu
	available map[string]string // instance id -> the build its last update_check saw; guarded by mu
	wg        sync.WaitGroup    // the task goroutines; wait() at shutdown
}

func newTasks(in *install.Installer, lookup provisionLookup, log *slog.Logger) *tasks {
	return &tasks{in: in, lookup: lookup, deadline: defaultTaskDeadline, log: log,
		running: map[string]string{}, available: map[string]string{}}
}

// hostInstaller is the agent's installer: its steamcmd is [agent]
// steamcmd, or the first of steamcmd, steamcmd.sh on PATH, with its
// appcache/ in steamcmd_home or beside the program (none: a steamcmd step
// fails with install_no_steamcmd).
func hostInstaller(cfg *config.Agent, log *slog.Logger) *install.Installer {
	o := install.Options{Log: log.With("component", "install")}
	if p, ok := cfg.SteamCMDProgram(); ok {
		o.Steam = &steam.Runner{Path: p, Home: cfg.SteamCMDHome, Log: log.With("component", "steam")}
	} else if cfg.SteamCMD != "" {
		log.Warn("steamcmd is not usable; steamcmd steps will fail", "steamcmd", cfg.SteamCMD)
	}
	return install.New(o)
}

// begin claims id for task; the task already running on it is the error.
func (t *tasks) begin(id, task string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur := t.running[id]; cur != "" {
		return wire.Errorf(wire.CodeBusy, "instance %s is busy with %s; one task at a time", id, cur)
	}
	t.running[id] = task
	t.wg.Add(1)
	return nil
}

func (t *tasks) end(id string) {
	t.mu.Lock()
	delete(t.running, id)
	t.mu.Unlock()
	t.wg.Done()
}

// current is the task running on id, "" if none.
func (t *tasks) current(id string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running[id]
}

// builds are the instance's installed build (its game's manifest, read
// now) and the newest build its last update_check saw, for the heartbeat;
// "" when unknown.
func (t *tasks) builds(id string) (installed, available string) {
	spec, root, ok := t.lookup(id)
	if !ok {
		return "", ""
	}
	if app := install.SteamApp(spec); app != "" {
		if m, err := steam.Installed(root, app); err == nil {
			installed = m.BuildID
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return installed, t.available[id]
}

// saw records the build an update_check saw.
func (t *tasks) saw(id, build string) {
	t.mu.Lock()
	t.available[id] = build
	t.mu.Unlock()
}

// wait waits for the running tasks (at shutdown, once their context is
// cancelled, they end promptly).
func (t *tasks) wait() { t.wg.Wait() }
