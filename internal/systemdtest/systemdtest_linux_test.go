package systemdtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestBoot_RunsSystemdAndLeavesNothingBehind boots a machine, runs commands
// in it, writes into it without touching the host, reboots it, and checks
// that the teardown leaves no process, mount or directory behind.
func TestBoot_RunsSystemdAndLeavesNothingBehind(t *testing.T) {
	var dir string
	var pids []int // systemd-nspawn and the container's init, of each boot
	ok := t.Run("boot", func(t *testing.T) {
		m := Boot(t)
		dir, pids = m.dir, append(pids, m.nspawn.Process.Pid, m.pid)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		checkMachine(t, ctx, m)
		m.MustRun(ctx, "systemd-run", "--unit=systemdtest-sleeper", "sleep", "600")
		m.Reboot()
		pids = append(pids, m.nspawn.Process.Pid, m.pid)
		if pids[2] == pids[0] || pids[3] == pids[1] {
			t.Errorf("Reboot kept its processes: %v", pids)
		}
		if got := m.MustRun(ctx, "systemctl", "is-system-running"); got != "running" && got != "degraded" {
			t.Errorf("after the reboot is-system-running = %q", got)
		}
		m.MustRun(ctx, "test", "-f", "/etc/systemdtest-written-inside")
		if out, err := m.Run(ctx, "pgrep", "-x", "sleep"); err == nil {
			t.Errorf("a process of the first boot survived the reboot: %s", out)
		}
	})
	switch {
	case !ok:
		return // its log says why
	case dir == "":
		t.Skip("the boot was skipped")
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("pid %d is still there after the teardown (kill 0: %v)", pid, err)
		}
	}
	if mountedBelow(dir) {
		t.Errorf("%s is still mounted", dir)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is left behind: %v", dir, err)
	}
}

// checkMachine checks a fresh machine: systemd is PID 1, CopyIn and
// commands work, and writes inside never reach the host.
func checkMachine(t *testing.T, ctx context.Context, m *Machine) {
	t.Helper()
	if got := m.MustRun(ctx, "cat", "/proc/1/comm"); got != "systemd" {
		t.Errorf("PID 1 in the container is %q, want systemd", got)
	}
	if got := m.MustRun(ctx, "systemctl", "is-system-running"); got != "running" && got != "degraded" {
		t.Errorf("is-system-running = %q", got)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const inside = "/opt/systemdtest-probe/bin"
	m.CopyIn(self, inside, 0o750)
	if got := m.MustRun(ctx, "stat", "--format=%a %U", inside); got != "750 root" {
		t.Errorf("copied file: %q, want 750 root", got)
	}
	m.MustRun(ctx, "touch", "/etc/systemdtest-written-inside")
	if _, err := os.Stat(filepath.Join(m.Root(), "etc/systemdtest-written-inside")); err != nil {
		t.Errorf("a file written inside is not under Root(): %v", err)
	}
	for _, p := range []string{"/etc/systemdtest-written-inside", "/opt/systemdtest-probe"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the host's %s: %v, want it absent (the overlay takes every write)", p, err)
		}
	}
	if _, err := m.Run(ctx, "false"); err == nil {
		t.Error("Run of a failing command returned no error")
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`/tmp/plain`, `/tmp/plain`},
		{`/tmp/a\040b`, `/tmp/a b`},
		{`/tmp/tab\011`, "/tmp/tab\t"},
		{`/tmp/short\04`, `/tmp/short\04`},
		{`/tmp/notoctal\9xy`, `/tmp/notoctal\9xy`},
	} {
		if got := unescapeMountinfo(c.in); got != c.want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
