package installer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/systemdtest"
	"github.com/corrosion/corrosion/internal/testbin"
)

// Where the live test puts its binaries inside the container.
const (
	liveDir      = "/opt/corrosion-test"
	liveAgentV1  = liveDir + "/corrosion-agent"
	liveAgentV2  = liveDir + "/corrosion-agent-v2"
	liveGame     = liveDir + "/fakegame"
	liveGameRoot = GamesDir + "/game1"
	liveWait     = 20 * time.Second // bound of every wait on the service or the game
)

// liveConfig is a config that validates: the container's own nats-server
// (its URL from agent.env: liveEnv), one generic instance running the fake
// game under /srv/corrosion.
var liveConfig = fmt.Sprintf(`[agent]
license_id = "ci"
nats_url = "${CORROSION_TEST_NATS}"
state_dir = %q
log_level = "debug"

[[instance]]
id = "game1"
game = "generic"
root = %q
exec = %q
args = ["-stdout-lines", "1", "-stop-line", "save-and-quit"]
stop_command = "save-and-quit"
restart = "on-crash"
autostart = true
`, StateDir, liveGameRoot, liveGame)

// liveEnv is agent.env: 0600 root:root, read by systemd before it drops
// to corrosion.
const liveEnv = "CORROSION_TEST_NATS=nats://127.0.0.1:4222\n"

// liveHost drives the installer and systemd inside a booted container.
type liveHost struct {
	t   *testing.T
	m   *systemdtest.Machine
	ctx context.Context
}

func (h liveHost) run(args ...string) string {
	h.t.Helper()
	return h.m.MustRun(h.ctx, args...)
}

// installer runs `BIN VERB` inside and returns its output; it must succeed.
func (h liveHost) installer(bin, verb string) string {
	h.t.Helper()
	out := h.run(bin, verb)
	h.t.Logf("%s %s:\n%s", bin, verb, out)
	return out
}

// prop is one property of the agent's service (systemctl show).
func (h liveHost) prop(name string) string {
	h.t.Helper()
	return h.run("systemctl", "show", "--property="+name, "--value", ServiceName)
}

// systemctlState is the output of `systemctl VERB corrosion-agent`, whose
// exit status only repeats it.
func (h liveHost) systemctlState(verb string) string {
	out, _ := h.m.Run(h.ctx, "systemctl", verb, ServiceName)
	return strings.TrimSpace(out)
}

// userOf is the user pid runs as, "" when it is gone.
func (h liveHost) userOf(pid int) string {
	u, _ := h.procOf(pid)
	return u
}

// procOf is the user pid runs as and its command name, "" when it is gone.
func (h liveHost) procOf(pid int) (user, comm string) {
	out, err := h.m.Run(h.ctx, "ps", "-o", "user:64=,comm=", "-p", strconv.Itoa(pid))
	f := strings.Fields(out)
	if err != nil || len(f) != 2 {
		return "", ""
	}
	return f[0], f[1]
}

// gamePID is the game's PID as the agent recorded it in state.json, 0
// when none is recorded.
func (h liveHost) gamePID() int {
	pid, _ := h.gameRecord()
	return pid
}

// gameRecord is the game's PID and start time as the agent recorded them
// in state.json; 0 when none is recorded.
func (h liveHost) gameRecord() (pid int, started time.Time) {
	b, err := os.ReadFile(filepath.Join(h.m.Root(), StateDir, "instances/game1/state.json"))
	if err != nil {
		return 0, time.Time{}
	}
	var st struct {
		Process *struct {
			PID int `json:"pid"`
		} `json:"process"`
		StartedAt time.Time `json:"started_at"`
	}
	if json.Unmarshal(b, &st) != nil || st.Process == nil {
		return 0, time.Time{}
	}
	return st.Process.PID, st.StartedAt
}

// waitActive waits until the service is active with a main PID other than
// not, and returns that PID.
func (h liveHost) waitActive(not int) int {
	h.t.Helper()
	var pid int
	poll.Until(h.t, liveWait, func() error {
		state, main := h.systemctlState("is-active"), h.prop("MainPID")
		pid, _ = strconv.Atoi(main)
		if state != "active" || pid == 0 || pid == not {
			return fmt.Errorf("is-active %s, MainPID %s (want a new one, not %d)", state, main, not)
		}
		return nil
	})
	return pid
}

// journal is what the service's current run (invocation) logged.
func (h liveHost) journal() string {
	h.t.Helper()
	id := h.prop("InvocationID")
	out, _ := h.m.Run(h.ctx, "journalctl", "--no-pager", "--output=cat", "_SYSTEMD_INVOCATION_ID="+id)
	return out
}

// waitAdopted waits until the agent's current run logs that it adopted
// the game with pid.
func (h liveHost) waitAdopted(pid int) {
	h.t.Helper()
	poll.Until(h.t, liveWait, func() error {
		j := h.journal()
		if logged(j, `msg="adopted running instance"`, " instance=game1 ", " pid="+strconv.Itoa(pid)) {
			return nil
		}
		return fmt.Errorf("the agent's journal does not say it adopted pid %d:\n%s", pid, j)
	})
}

// checkGame checks that the game is running, as corrosion, with pid.
func (h liveHost) checkGame(pid int, when string) {
	h.t.Helper()
	if got := h.gamePID(); got != pid {
		h.t.Errorf("%s: the recorded game PID is %d, want %d (the same process)", when, got, pid)
	}
	if u := h.userOf(pid); u != ServiceUser {
		h.t.Errorf("%s: game pid %d runs as %q, want %s", when, pid, u, ServiceUser)
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// logged reports whether one line of the journal j holds all of parts.
func logged(j string, parts ...string) bool {
	for _, line := range strings.Split(j, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line+" ", p)
		}
		if all {
			return true
		}
	}
	return false
}

func mustContain(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
}

// buildAgentVersion builds the agent (without the race detector: it runs
// as the service) with buildinfo.Version set to version.
func buildAgentVersion(t *testing.T, dir, version string) string {
	t.Helper()
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "corrosion-agent-"+version)
	cmd := exec.Command("go", "build", "-o", out,
		"-ldflags", "-X github.com/corrosion/corrosion/internal/buildinfo.Version="+version, "./agent/cmd/corrosion-agent")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build the agent %s: %v\n%s", version, err, b)
	}
	return out
}

// TestInstall_UnderRealSystemd installs the real agent as a service under
// a real systemd (a booted container) and walks through what
// docs/installer.md promises: not enabled until the config validates (as
// the service's user), enable --now once it does, idempotence, a restart
// and an upgrade that keep the game and adopt it, service-status, an
// uninstall that keeps config, data, user and the running game, a start
// at boot, and the edge cases found running it (a stale unit, a failed
// start, a unit deleted by hand, no systemd).
func TestInstall_UnderRealSystemd(t *testing.T) {
	requireCleanHost(t)
	bins := t.TempDir()
	agentV1, agentV2 := buildAgentVersion(t, bins, "1.0.0-live"), buildAgentVersion(t, bins, "1.0.1-live")
	game := testbin.Build(t, "./tools/fakegame")
	m := systemdtest.Boot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h := liveHost{t: t, m: m, ctx: ctx}
	m.CopyIn(agentV1, liveAgentV1, 0o755)
	m.CopyIn(agentV2, liveAgentV2, 0o755)
	m.CopyIn(game, liveGame, 0o755)
	// The agent's NATS: Debian's nats-server (127.0.0.1:4222) in the
	// container. Its package enables it; start it in case a machine did not.
	h.run("systemctl", "start", "nats-server.service")

	h.firstInstallWithoutConfig()
	h.installWithConfigTheServiceCannotRead()
	agentPID, gamePID := h.installWithConfig()
	h.installAgainChangesNothing(agentPID)
	agentPID = h.staleUnitIsReloaded(agentPID, gamePID)
	agentPID = h.restartAdopts(agentPID, gamePID)
	agentPID = h.upgradeAdopts(agentPID, gamePID)
	h.serviceStatus(agentPID)
	h.uninstallKeepsTheGame(gamePID)
	h.failedStartIsAnError()
	h.reinstallAdopts(gamePID)
	h.rebootStartsAgentAndGame()
	h.uninstallAfterUnitRemovedByHand()
	h.installWithoutSystemd()
}

// requireCleanHost: the container boots over the machine's own root, so
// an agent installed on the machine would be in it, enabled, from the
// start, and without the machine's D-Bus no user but root can ask systemd
// anything. Skip on such a machine (a developer's); CI's must be right.
func requireCleanHost(t *testing.T) {
	t.Helper()
	var found []string
	for _, p := range []string{UnitPath, BinaryPath, ConfigDir, StateDir, GamesDir} {
		if _, err := os.Lstat(p); err == nil {
			found = append(found, p)
		}
	}
	if _, err := user.Lookup(ServiceUser); err == nil {
		found = append(found, "user "+ServiceUser)
	}
	_, daemonErr := exec.LookPath("dbus-daemon")
	_, brokerErr := exec.LookPath("dbus-broker")
	if daemonErr != nil && brokerErr != nil {
		msg := "no D-Bus (dbus-daemon or dbus-broker), which systemctl run by corrosion (service-status) needs in the container"
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: CI must install dbus", msg)
		}
		t.Skipf("%s (Debian: apt-get install dbus); CI runs this", msg)
	}
	if len(found) == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("this machine has an agent install (%s): CI's must not", strings.Join(found, ", "))
	}
	t.Skipf("this machine has an agent install (%s), which the container would boot with; CI runs this", strings.Join(found, ", "))
}

// firstInstallWithoutConfig: the unit is installed and daemon-reloaded,
// but not enabled or started, and the output says what to do next.
func (h liveHost) firstInstallWithoutConfig() {
	h.t.Helper()
	out := h.installer(liveAgentV1, "install")
	mustContain(h.t, "the first install", out,
		"create user corrosion",
		"install "+liveAgentV1+" as "+BinaryPath,
		"write "+linuxConfig+" 0640 root:corrosion",
		"write "+UnitPath+" 0644 root:root",
		"systemctl daemon-reload",
		"skip enable corrosion-agent: /etc/corrosion/agent.toml does not validate yet:",
		"agent.license_id: is not set",
		"next: edit /etc/corrosion/agent.toml, check it with `sudo -u corrosion /usr/local/bin/corrosion-agent validate --config /etc/corrosion/agent.toml`",
		"then run `sudo /usr/local/bin/corrosion-agent install` again")
	if s := h.prop("LoadState"); s != "loaded" {
		h.t.Errorf("after the first install systemd has the unit %s, want loaded", s)
	}
	if s := h.prop("NeedDaemonReload"); s != "no" {
		h.t.Errorf("after the first install NeedDaemonReload=%s: no daemon-reload after writing the unit", s)
	}
	if s := h.systemctlState("is-enabled"); s != "disabled" {
		h.t.Errorf("after the first install is-enabled = %q, want disabled (the config does not validate)", s)
	}
	if s := h.systemctlState("is-active"); s != "inactive" {
		h.t.Errorf("after the first install is-active = %q, want inactive", s)
	}
}

// installWithConfigTheServiceCannotRead: a config that validates for
// root but that the service's user cannot read (0600 root:root, a common
// slip when it is written by hand) is not enabled: the service would fail
// its ExecStartPre and restart every 5 s.
func (h liveHost) installWithConfigTheServiceCannotRead() {
	h.t.Helper()
	h.run("install", "-d", "-m", "0750", "-o", ServiceUser, "-g", ServiceUser, liveGameRoot)
	h.m.WriteFile(EnvFilePath, []byte(liveEnv), 0o600)
	h.m.WriteFile(linuxConfig, []byte(liveConfig), 0o600)
	out, err := h.m.Run(h.ctx, liveAgentV1, "install")
	h.t.Logf("install with a config only root can read (%v):\n%s", err, out)
	if err != nil {
		h.t.Errorf("install failed: %v", err)
	}
	mustContain(h.t, "the install with a config only root can read", out,
		"skip enable corrosion-agent: /etc/corrosion/agent.toml does not validate as user corrosion",
		"read config: open /etc/corrosion/agent.toml: permission denied",
		"next: edit /etc/corrosion/agent.toml")
	if strings.Contains(out, "\nsystemctl enable") {
		h.t.Error("install enabled a service whose user cannot read its config")
	}
	if s := h.systemctlState("is-enabled"); s != "disabled" {
		h.t.Errorf("is-enabled = %q, want disabled", s)
	}
	if s := h.systemctlState("is-active"); s != "inactive" {
		h.t.Errorf("is-active = %q, want inactive", s)
	}
	h.run("chmod", "0640", linuxConfig)
	h.run("chgrp", ServiceUser, linuxConfig)
}

// installWithConfig: with a config that validates, install enables and
// starts the service; the agent and its game run as corrosion. It returns
// both PIDs.
func (h liveHost) installWithConfig() (agentPID, gamePID int) {
	h.t.Helper()
	out := h.installer(liveAgentV1, "install")
	mustContain(h.t, "the install with a valid config", out,
		"skip "+linuxConfig+" (exists; never overwritten)", "systemctl enable --now corrosion-agent")
	if s := h.systemctlState("is-enabled"); s != "enabled" {
		h.t.Errorf("is-enabled = %q, want enabled", s)
	}
	agentPID = h.waitActive(0)
	// Type=simple: active right after systemd's fork, before its child
	// drops to User= and execs the agent.
	poll.Until(h.t, liveWait, func() error {
		if u, comm := h.procOf(agentPID); comm != ServiceName || u != ServiceUser {
			return fmt.Errorf("the agent (MainPID %d) is %q running as %q, want %s running as %s",
				agentPID, comm, u, ServiceName, ServiceUser)
		}
		return nil
	})
	poll.Until(h.t, liveWait, func() error {
		if gamePID = h.gamePID(); gamePID == 0 || h.userOf(gamePID) == "" {
			return fmt.Errorf("no game running (recorded pid %d); the agent's journal:\n%s", gamePID, h.journal())
		}
		return nil
	})
	h.checkGame(gamePID, "after enable --now")
	poll.Until(h.t, liveWait, func() error {
		if j := h.journal(); !logged(j, `msg="nats connected"`, " server=nats://127.0.0.1:4222") {
			return fmt.Errorf("the agent has not connected to the URL of agent.env:\n%s", j)
		}
		return nil
	})
	return agentPID, gamePID
}

// installAgainChangesNothing: a third install prints only ok/skip lines,
// rewrites nothing and does not restart the agent.
func (h liveHost) installAgainChangesNothing(agentPID int) {
	h.t.Helper()
	unit := filepath.Join(h.m.Root(), UnitPath)
	before, err := os.Stat(unit)
	if err != nil {
		h.t.Fatal(err)
	}
	out := h.installer(liveAgentV1, "install")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, "ok ") && !strings.HasPrefix(line, "skip ") {
			h.t.Errorf("a repeated install did something: %q", line)
		}
	}
	mustContain(h.t, "the repeated install", out, "ok   service corrosion-agent enabled and active (running)")
	if after, err := os.Stat(unit); err != nil {
		h.t.Error(err)
	} else if !after.ModTime().Equal(before.ModTime()) {
		h.t.Errorf("a repeated install touched the unit: modified %v, was %v", after.ModTime(), before.ModTime())
	}
	if pid, _ := strconv.Atoi(h.prop("MainPID")); pid != agentPID {
		h.t.Errorf("a repeated install restarted the agent: MainPID %d, was %d", pid, agentPID)
	}
}

// staleUnitIsReloaded: when systemd runs another unit than the one on
// disk (edited by hand and reloaded, then put back; or an install cut off
// before its daemon-reload), install reloads systemd and restarts the
// agent on the unit on disk. It returns the new agent's PID.
func (h liveHost) staleUnitIsReloaded(agentPID, gamePID int) int {
	h.t.Helper()
	unit := filepath.Join(h.m.Root(), UnitPath)
	orig, err := os.ReadFile(unit)
	if err != nil {
		h.t.Fatal(err)
	}
	edited := strings.Replace(string(orig), "RestartSec=5s", "RestartSec=7s", 1)
	h.m.WriteFile(UnitPath, []byte(edited), 0o644)
	h.run("systemctl", "daemon-reload")
	h.m.WriteFile(UnitPath, orig, 0o644)
	if s := h.prop("NeedDaemonReload"); s != "yes" {
		h.t.Fatalf("NeedDaemonReload = %s after the unit on disk changed", s)
	}
	mustContain(h.t, "service-status with a stale unit", h.run(BinaryPath, "service-status"),
		fmt.Sprintf("service: enabled, active (running), pid %d; systemd has not loaded the unit on disk (install reloads it)\n", agentPID))
	out := h.installer(liveAgentV1, "install")
	mustContain(h.t, "the install over a stale unit", out, "ok   "+UnitPath+" 0644 root:root (unchanged)",
		"\nsystemctl daemon-reload\n", "\nsystemctl restart corrosion-agent")
	if s := h.prop("NeedDaemonReload"); s != "no" {
		h.t.Errorf("after install NeedDaemonReload = %s, want no", s)
	}
	if s := h.prop("RestartUSec"); s != "5s" {
		h.t.Errorf("after install systemd has RestartSec=%s, want the unit's 5s", s)
	}
	newPID := h.waitActive(agentPID)
	h.waitAdopted(gamePID)
	h.checkGame(gamePID, "after the install over a stale unit")
	return newPID
}

// restartAdopts: `systemctl restart` stops only the agent (KillMode=process);
// the new agent adopts the game. It returns the new agent's PID.
func (h liveHost) restartAdopts(agentPID, gamePID int) int {
	h.t.Helper()
	h.run("systemctl", "restart", ServiceName)
	newPID := h.waitActive(agentPID)
	h.waitAdopted(gamePID)
	h.checkGame(gamePID, "after systemctl restart")
	return newPID
}

// upgradeAdopts: install from another agent binary replaces the installed
// one and restarts the service; the game keeps running and is adopted. It
// returns the new agent's PID.
func (h liveHost) upgradeAdopts(agentPID, gamePID int) int {
	h.t.Helper()
	h.dryRunChangesNothing(agentPID, liveAgentV2, "install", "would install "+liveAgentV2+" as "+BinaryPath,
		"would systemctl daemon-reload", "would systemctl restart corrosion-agent")
	out := h.installer(liveAgentV2, "install")
	mustContain(h.t, "the upgrade", out,
		"install "+liveAgentV2+" as "+BinaryPath+" 0755 root:root",
		"ok   "+UnitPath+" 0644 root:root (unchanged)",
		"systemctl restart corrosion-agent (new binary or unit; game servers keep running and are adopted)")
	if v := h.run(BinaryPath, "version"); !strings.Contains(v, "1.0.1-live") {
		h.t.Errorf("after the upgrade %s is %q, want version 1.0.1-live", BinaryPath, v)
	}
	newPID := h.waitActive(agentPID)
	h.waitAdopted(gamePID)
	if j := h.journal(); !logged(j, `msg="corrosion-agent starting"`, ` version="1.0.1-live `) {
		h.t.Errorf("the agent running after the upgrade is not 1.0.1-live:\n%s", j)
	}
	h.checkGame(gamePID, "after the upgrade")
	return newPID
}

// serviceStatus: service-status reports the live service, as root and as
// an unprivileged user.
func (h liveHost) serviceStatus(agentPID int) {
	h.t.Helper()
	want := []string{
		"unit:    " + UnitPath + " installed\n",
		fmt.Sprintf("service: enabled, active (running), pid %d\n", agentPID),
		"config:  " + linuxConfig + ": valid\n",
		"binary:  " + BinaryPath + " installed\n",
		"user:    corrosion (uid ",
	}
	mustContain(h.t, "service-status", h.installer(BinaryPath, "service-status"), want...)
	// agent.env (0600 root:root) is unreadable to others, and the config
	// takes nats_url from it.
	want[2] = "config:  " + linuxConfig + ": cannot check it: " + EnvFilePath +
		" is not readable here (permission denied); run service-status as root\n"
	asUser := h.run("runuser", "-u", ServiceUser, "--", BinaryPath, "service-status")
	mustContain(h.t, "service-status as corrosion", asUser, want...)
}

// dryRunChangesNothing: `BIN VERB --dry-run` against the live systemd
// prints the steps (wants) and leaves the unit, the installed binary and
// the running agent alone.
func (h liveHost) dryRunChangesNothing(agentPID int, bin, verb string, wants ...string) {
	h.t.Helper()
	files := []string{UnitPath, BinaryPath}
	before := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(h.m.Root(), f))
		if err != nil {
			h.t.Fatal(err)
		}
		before[f] = b
	}
	out := h.run(bin, verb, "--dry-run")
	mustContain(h.t, verb+" --dry-run", out, append([]string{"dry run: nothing is changed"}, wants...)...)
	for _, f := range files {
		if b, err := os.ReadFile(filepath.Join(h.m.Root(), f)); err != nil || string(b) != string(before[f]) {
			h.t.Errorf("%s --dry-run changed %s (%v)", verb, f, err)
		}
	}
	if pid, _ := strconv.Atoi(h.prop("MainPID")); pid != agentPID || h.systemctlState("is-enabled") != "enabled" {
		h.t.Errorf("%s --dry-run touched the service: MainPID %d (was %d), %s", verb, pid, agentPID, h.systemctlState("is-enabled"))
	}
}

// uninstallKeepsTheGame: uninstall stops, disables and removes the unit
// and reloads systemd; config, data, user, binary and the game stay.
func (h liveHost) uninstallKeepsTheGame(gamePID int) {
	h.t.Helper()
	agentPID, _ := strconv.Atoi(h.prop("MainPID"))
	h.dryRunChangesNothing(agentPID, BinaryPath, "uninstall", "would systemctl disable --now corrosion-agent",
		"would remove "+UnitPath, "would systemctl daemon-reload")
	out := h.installer(BinaryPath, "uninstall")
	mustContain(h.t, "uninstall", out,
		"systemctl disable --now corrosion-agent (stops the agent; game servers keep running)",
		"remove "+UnitPath, "systemctl daemon-reload", "keep /etc/corrosion, /var/lib/corrosion-agent")
	if _, err := h.m.Run(h.ctx, "systemctl", "cat", ServiceName); err == nil {
		h.t.Error("after uninstall `systemctl cat corrosion-agent` still succeeds")
	}
	if s := h.systemctlState("is-active"); s == "active" {
		h.t.Errorf("after uninstall is-active = %q", s)
	}
	if s := h.systemctlState("is-enabled"); s == "enabled" {
		h.t.Errorf("after uninstall is-enabled = %q", s)
	}
	if _, err := os.Lstat(filepath.Join(h.m.Root(), "etc/systemd/system/multi-user.target.wants", ServiceName+".service")); err == nil {
		h.t.Error("after uninstall the multi-user.target.wants link is still there")
	}
	for _, p := range []string{linuxConfig, StateDir + "/instances/game1/state.json", liveGameRoot, BinaryPath} {
		if _, err := os.Stat(filepath.Join(h.m.Root(), p)); err != nil {
			h.t.Errorf("uninstall removed %s: %v", p, err)
		}
	}
	h.run("id", ServiceUser)
	h.checkGame(gamePID, "after uninstall")
	mustContain(h.t, "a second uninstall", h.installer(BinaryPath, "uninstall"), "ok   "+UnitPath+" not installed")
	mustContain(h.t, "service-status after uninstall", h.installer(BinaryPath, "service-status"),
		"unit:    "+UnitPath+" not installed\n", "service: not-found, inactive (dead), pid 0\n")
}

// failedStartIsAnError: when systemd cannot start the service (here a
// drop-in of the operator's whose ExecStartPre fails), install exits
// non-zero naming the step once, with systemd's explanation.
func (h liveHost) failedStartIsAnError() {
	h.t.Helper()
	h.m.WriteFile(UnitPath+".d/broken.conf", []byte("[Service]\nExecStartPre=/bin/false\n"), 0o644)
	out, err := h.m.Run(h.ctx, BinaryPath, "install")
	h.t.Logf("install with a failing drop-in (%v):\n%s", err, out)
	if err == nil {
		h.t.Error("install succeeded though the service cannot start")
	}
	want := "corrosion-agent install: systemctl enable --now corrosion-agent: exit status 1: "
	mustContain(h.t, "the failed install", out, want, "Job for corrosion-agent.service failed")
	if n := strings.Count(out, "systemctl enable --now corrosion-agent:"); n != 1 {
		h.t.Errorf("the error names the step %d times, want once", n)
	}
	if err := os.RemoveAll(filepath.Join(h.m.Root(), UnitPath+".d")); err != nil {
		h.t.Fatal(err)
	}
}

// reinstallAdopts: install after uninstall (and after the failed start)
// runs the agent again, which adopts the game uninstall left running.
func (h liveHost) reinstallAdopts(gamePID int) {
	h.t.Helper()
	out := h.installer(BinaryPath, "install")
	mustContain(h.t, "the reinstall", out, "\nsystemctl daemon-reload\n")
	agentPID := h.waitActive(0)
	h.waitAdopted(gamePID)
	h.checkGame(gamePID, "after the reinstall")
	if s := h.systemctlState("is-enabled"); s != "enabled" {
		h.t.Errorf("after the reinstall is-enabled = %q", s)
	}
	if u := h.userOf(agentPID); u != ServiceUser {
		h.t.Errorf("after the reinstall the agent runs as %q", u)
	}
}

// rebootStartsAgentAndGame: after a reboot (every process gone, PIDs
// reused) the enabled service starts at boot, as corrosion, and the agent
// starts the game afresh instead of adopting whatever now has its old PID.
// At the poweroff the shutdown hook had the agent stop the game with its
// stop command.
func (h liveHost) rebootStartsAgentAndGame() {
	h.t.Helper()
	h.persistJournal()
	rebooted := time.Now()
	h.m.Reboot()
	agentPID := h.waitActive(0)
	if u := h.userOf(agentPID); u != ServiceUser {
		h.t.Errorf("after the reboot the agent runs as %q", u)
	}
	poll.Until(h.t, liveWait, func() error {
		pid, started := h.gameRecord()
		if user, comm := h.procOf(pid); pid == 0 || started.Before(rebooted) || comm != "fakegame" || user != ServiceUser {
			return fmt.Errorf("after the reboot the recorded game is pid %d started %v (%s as %q), want a fakegame started after %v as %s; journal:\n%s",
				pid, started, comm, user, rebooted, ServiceUser, h.journal())
		}
		return nil
	})
	// At the poweroff the unit's shutdown hook had the agent stop the game
	// with its stop command (not systemd's SIGTERM), then exit.
	b, err := os.ReadFile(filepath.Join(h.m.Root(), StateDir, "instances/game1/stdout.log"))
	if _, after, _ := strings.Cut(string(b), "stop line received, shutting down\n"); err != nil || !strings.Contains(after, "fakegame starting") {
		h.t.Errorf("the game's stdout.log does not show its stop command at the poweroff, then a new start (%v):\n%s", err, tail(string(b), 20))
	}
	if strings.Contains(string(b), "got terminated") {
		h.t.Errorf("the game got SIGTERM:\n%s", tail(string(b), 20))
	}
	prev, _ := h.m.Run(h.ctx, "journalctl", "--no-pager", "--output=cat", "--boot=-1", "--unit="+ServiceName)
	if !logged(prev, `msg="host shutdown: 1 games stopped"`) ||
		!strings.Contains(prev, "shutdown-hook: the agent (pid ") {
		h.t.Errorf("the journal of the boot before does not show the hook and the agent's host-shutdown line:\n%s", tail(prev, 30))
	}
	if j := h.journal(); logged(j, `msg="adopted running instance"`) {
		h.t.Errorf("after the reboot the agent adopted something:\n%s", j)
	}
}

// persistJournal makes the container's journal persistent (Debian keeps
// it in /run by default), so the boot before a reboot can be read.
func (h liveHost) persistJournal() {
	h.t.Helper()
	h.run("mkdir", "-p", "/var/log/journal")
	h.run("systemd-tmpfiles", "--create", "--prefix", "/var/log/journal")
	h.run("journalctl", "--flush")
}

// uninstallAfterUnitRemovedByHand: with the unit file deleted by hand,
// systemd still runs the agent and keeps the enable link; uninstall stops
// and disables it all the same, and the game keeps running (stopped
// without its unit, the service would have KillMode=control-group).
func (h liveHost) uninstallAfterUnitRemovedByHand() {
	h.t.Helper()
	gamePID := h.gamePID()
	h.run("rm", UnitPath)
	out := h.installer(BinaryPath, "uninstall")
	mustContain(h.t, "uninstall without a unit file", out,
		"restore "+UnitPath+" (removed by hand, but systemd still runs or enables corrosion-agent",
		"\nsystemctl daemon-reload\nsystemctl disable --now corrosion-agent (stops the agent; game servers keep running)",
		"\nremove "+UnitPath+"\nsystemctl daemon-reload\n")
	if s := h.systemctlState("is-active"); s == "active" {
		h.t.Errorf("uninstall left the agent running: is-active = %q", s)
	}
	if _, err := os.Lstat(filepath.Join(h.m.Root(), wantsLink)); err == nil {
		h.t.Errorf("uninstall left %s", wantsLink)
	}
	h.checkGame(gamePID, "after the uninstall without a unit file")
	mustContain(h.t, "a second uninstall", h.installer(BinaryPath, "uninstall"), "ok   "+UnitPath+" not installed")
}

// installWithoutSystemd: on a host not booted with systemd (here: this one
// with /run/systemd hidden under a tmpfs: no /run/systemd/system, which is
// how a program tells), install puts the files in place, calls no
// systemctl and says so.
func (h liveHost) installWithoutSystemd() {
	h.t.Helper()
	out := h.run("unshare", "--mount", "sh", "-c",
		"mount -t tmpfs none /run/systemd && exec "+BinaryPath+" install")
	h.t.Logf("install without systemd:\n%s", out)
	mustContain(h.t, "the install without systemd", out, "write "+UnitPath+" 0644 root:root",
		"skip systemctl: systemd is not running on this host (no /run/systemd/system); start `"+
			BinaryPath+" run --config "+linuxConfig+"` as user corrosion yourself")
	if strings.Contains(out, "\nsystemctl ") || strings.Contains(out, "skip enable") {
		h.t.Error("the install without systemd ran systemctl, or found the valid config wanting")
	}
	if s := h.systemctlState("is-enabled"); s == "enabled" {
		h.t.Errorf("the install without systemd enabled the service: %s", s)
	}
	if s := h.systemctlState("is-active"); s == "active" {
		h.t.Errorf("the install without systemd started the service: %s", s)
	}
}
