package systemdtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// Bounds of a boot and a teardown.
const (
	// BootTimeout bounds the wait for `systemctl is-system-running` to say
	// running or degraded (a boot takes about 5 s).
	BootTimeout = 60 * time.Second
	// stepTimeout bounds each step of the teardown (poweroff, SIGTERM,
	// SIGKILL) and each probe of the boot.
	stepTimeout = 15 * time.Second
)

// containerEnv is the environment of every command run in the container:
// nothing of the test process's leaks in.
var containerEnv = []string{
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"LANG=C.UTF-8", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0", "HOME=/root",
}

// Machine is a booted container. Its methods are safe for concurrent use
// once Boot has returned, except Reboot, which nothing may run alongside.
type Machine struct {
	t      testing.TB     // immutable after Boot
	dir    string         // immutable: holds up/, work/ and root/ (the overlay)
	name   string         // immutable: the machine name
	log    testbin.Output // systemd-nspawn's output, every boot's; safe for concurrent use
	nspawn *exec.Cmd      // set by start (Boot, Reboot)
	exited chan struct{}  // set by start: closed when that systemd-nspawn has exited
	pid    int            // set by start: the container's PID 1 as the host sees it
}

// Boot starts a container over an overlay of / and waits until its
// systemd has finished booting; t.Cleanup powers it off, unmounts the
// overlay and removes its directories (on failure it logs the boot log and
// the journal first). Without root, systemd-nspawn, nsenter or overlayfs it
// skips the test, or fails it when $CI is set.
func Boot(t testing.TB) *Machine {
	t.Helper()
	requireTools(t)
	m := &Machine{t: t, name: "corrosion-" + randomHex(t)}
	dir, err := os.MkdirTemp("", "corrosion-systemdtest-")
	if err != nil {
		t.Fatal(err)
	}
	m.dir = dir
	if err := m.mountOverlay(); err != nil {
		_ = os.RemoveAll(dir)
		missing(t, fmt.Sprintf("cannot mount an overlay of / (%v)", err))
	}
	t.Cleanup(m.teardown)
	if err := m.start(); err != nil {
		t.Fatalf("systemdtest: %v", err)
	}
	m.waitBooted()
	return m
}

// Reboot powers the machine off and boots it again on the same files, as
// a host reboots: every process is gone, every file written stays. Nothing
// may use the machine while it reboots.
func (m *Machine) Reboot() {
	m.t.Helper()
	m.stop()
	if !m.hasExited() {
		m.t.Fatalf("systemdtest: %s did not stop; cannot reboot it", m.name)
	}
	if err := m.start(); err != nil {
		m.t.Fatalf("systemdtest: reboot: %v", err)
	}
	m.waitBooted()
}

// Root is the host path of the container's /: a file written below it is
// seen by the container, and the other way round.
func (m *Machine) Root() string { return filepath.Join(m.dir, "root") }

// Name is the machine's name (systemd-nspawn --machine; the host name
// is the one in /etc/hostname).
func (m *Machine) Name() string { return m.name }

// Run runs args inside the container (all its namespaces, a clean
// environment) and returns the combined output; an error when it cannot
// run or exits non-zero, naming the command.
func (m *Machine) Run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "nsenter", append([]string{"--target", strconv.Itoa(m.pid), "--all", "--"}, args...)...)
	cmd.Env = containerEnv
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("in %s: %s: %w", m.name, strings.Join(args, " "), err)
	}
	return string(out), nil
}

// MustRun is Run that fails the test (with the output) on an error, and
// returns the output trimmed.
func (m *Machine) MustRun(ctx context.Context, args ...string) string {
	m.t.Helper()
	out, err := m.Run(ctx, args...)
	if err != nil {
		m.t.Fatalf("%v\n%s", err, out)
	}
	return strings.TrimSpace(out)
}

// CopyIn copies the host file hostPath to containerPath (absolute, inside
// the container) with mode, owned by root; missing parents are created
// 0755.
func (m *Machine) CopyIn(hostPath, containerPath string, mode fs.FileMode) {
	m.t.Helper()
	data, err := os.ReadFile(hostPath)
	if err != nil {
		m.t.Fatalf("systemdtest: copy in: %v", err)
	}
	m.WriteFile(containerPath, data, mode)
}

// WriteFile writes data to containerPath (absolute, inside the container)
// with mode, owned by root; missing parents are created 0755.
func (m *Machine) WriteFile(containerPath string, data []byte, mode fs.FileMode) {
	m.t.Helper()
	if !filepath.IsAbs(containerPath) {
		m.t.Fatalf("systemdtest: %q is not an absolute path", containerPath)
	}
	dst := filepath.Join(m.Root(), containerPath)
	err := os.MkdirAll(filepath.Dir(dst), 0o755)
	if err == nil {
		err = os.WriteFile(dst, data, mode)
	}
	if err == nil {
		err = os.Chmod(dst, mode) // whatever the umask
	}
	if err != nil {
		m.t.Fatalf("systemdtest: write %s: %v", containerPath, err)
	}
}

// requireTools skips (fails in CI) without root or the tools.
func requireTools(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		missing(t, "not root (booting a container needs it)")
	}
	for _, tool := range []string{"systemd-nspawn", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, tool+" is not installed (Debian: apt-get install systemd-container util-linux)")
		}
	}
}

// missing skips the test for a missing requirement, or fails it in CI,
// which must provide everything.
func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("systemdtest: %s: CI must run the systemd tests as root with systemd-container installed", why)
	}
	t.Skipf("systemdtest: %s; CI runs this", why)
}

func randomHex(t testing.TB) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// mountOverlay mounts dir/root: / as the lower layer, dir/up for writes.
func (m *Machine) mountOverlay() error {
	for _, d := range []string{"up", "work", "root"} {
		if err := os.Mkdir(filepath.Join(m.dir, d), 0o755); err != nil {
			return err
		}
	}
	opts := fmt.Sprintf("lowerdir=/,upperdir=%s,workdir=%s", filepath.Join(m.dir, "up"), filepath.Join(m.dir, "work"))
	return syscall.Mount("overlay", m.Root(), "overlay", 0, opts)
}

// start runs systemd-nspawn and finds the container's PID 1.
// --keep-unit and --register=no: the host has no systemd or D-Bus to
// register with.
func (m *Machine) start() error {
	m.exited, m.pid = make(chan struct{}), 0
	m.nspawn = exec.Command("systemd-nspawn", "--quiet", "--keep-unit", "--register=no", "--link-journal=no",
		"--private-network", "--console=pipe", "--boot", "--directory="+m.Root(), "--machine="+m.name)
	m.nspawn.Stdout, m.nspawn.Stderr = &m.log, &m.log
	m.nspawn.Env = containerEnv
	// A test binary that dies takes the container down with it (systemd-
	// nspawn powers it off on SIGTERM); the overlay stays mounted then.
	m.nspawn.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := m.nspawn.Start(); err != nil {
		return fmt.Errorf("start systemd-nspawn: %w", err)
	}
	cmd, exited := m.nspawn, m.exited
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	deadline := time.Now().Add(stepTimeout)
	for {
		if pid, ok := containerInit(m.nspawn.Process.Pid); ok {
			m.pid = pid
			return nil
		}
		select {
		case <-m.exited:
			return fmt.Errorf("systemd-nspawn exited (%v) before the container started", m.nspawn.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no container init below systemd-nspawn (pid %d) after %v", m.nspawn.Process.Pid, stepTimeout)
		}
		time.Sleep(poll.Interval)
	}
}

// waitBooted polls `systemctl is-system-running` until it says running or
// degraded (a unit of the machine's own failed to start: not our concern).
func (m *Machine) waitBooted() {
	m.t.Helper()
	poll.Until(m.t, BootTimeout, func() error {
		select {
		case <-m.exited:
			m.t.Fatalf("systemdtest: systemd-nspawn exited (%v) during the boot", m.nspawn.ProcessState)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		defer cancel()
		out, _ := m.Run(ctx, "systemctl", "is-system-running")
		switch state := strings.TrimSpace(out); state {
		case "running", "degraded":
			return nil
		default:
			return errors.New("systemctl is-system-running: " + state)
		}
	})
}
