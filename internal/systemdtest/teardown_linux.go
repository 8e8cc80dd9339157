package systemdtest

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// teardown, in order: on failure log the boot log and the journal; power
// the container off (then SIGTERM systemd-nspawn, then SIGKILL it and the
// container's init, each step bounded); unmount the overlay; remove its
// directories, only once nothing is mounted there any more.
func (m *Machine) teardown() {
	if m.t.Failed() {
		m.logDiagnostics()
	}
	m.stop()
	root := m.Root()
	if err := syscall.Unmount(root, 0); err != nil && !errors.Is(err, syscall.EINVAL) {
		if err := syscall.Unmount(root, syscall.MNT_DETACH); err != nil {
			m.t.Errorf("systemdtest: unmount %s: %v", root, err)
		}
	}
	if mountedBelow(m.dir) {
		m.t.Errorf("systemdtest: %s is still mounted; left in place", root)
		return
	}
	if err := os.RemoveAll(m.dir); err != nil {
		m.t.Errorf("systemdtest: remove %s: %v", m.dir, err)
	}
}

// logDiagnostics logs systemd-nspawn's output and the end of the
// container's journal.
func (m *Machine) logDiagnostics() {
	m.t.Logf("systemdtest: systemd-nspawn output:\n%s", m.log.String())
	if m.pid == 0 || m.hasExited() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	out, err := m.Run(ctx, "journalctl", "--boot", "--no-pager", "--lines=300")
	m.t.Logf("systemdtest: journal of %s (%v):\n%s", m.name, err, out)
}

// stop ends the container and systemd-nspawn, escalating.
func (m *Machine) stop() {
	if m.nspawn == nil || m.nspawn.Process == nil {
		return
	}
	if m.pid != 0 && !m.hasExited() {
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		_, _ = m.Run(ctx, "systemctl", "poweroff", "--no-block")
		cancel()
		if m.waitExited() {
			return
		}
		m.t.Logf("systemdtest: %s did not power off within %v; SIGTERM to systemd-nspawn", m.name, stepTimeout)
	}
	_ = m.nspawn.Process.Signal(syscall.SIGTERM)
	if m.waitExited() {
		return
	}
	m.t.Errorf("systemdtest: systemd-nspawn ignored SIGTERM for %v; SIGKILL", stepTimeout)
	if m.pid != 0 {
		_ = syscall.Kill(m.pid, syscall.SIGKILL) // the init of a PID namespace takes all of it along
	}
	_ = m.nspawn.Process.Kill()
	if !m.waitExited() {
		m.t.Errorf("systemdtest: systemd-nspawn (pid %d) survived SIGKILL", m.nspawn.Process.Pid)
	}
}

func (m *Machine) hasExited() bool {
	select {
	case <-m.exited:
		return true
	default:
		return false
	}
}

// waitExited waits up to stepTimeout for systemd-nspawn to exit.
func (m *Machine) waitExited() bool {
	select {
	case <-m.exited:
		return true
	case <-time.After(stepTimeout):
		return false
	}
}

// containerInit finds the container's init: the child of systemd-nspawn
// (pid nspawn) named systemd.
func containerInit(nspawn int) (int, bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, ppid, ok := procStat(pid)
		if ok && ppid == nspawn && comm == "systemd" {
			return pid, true
		}
	}
	return 0, false
}

// procStat reads a process's name and parent from /proc/PID/stat
// ("PID (COMM) STATE PPID ..."; COMM may hold spaces and parentheses).
func procStat(pid int) (comm string, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, false
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 2 {
		return "", 0, false
	}
	ppid, err = strconv.Atoi(fields[1])
	return s[open+1 : end], ppid, err == nil
}

// mountedBelow reports whether anything is mounted at or below dir in the
// test's mount namespace.
func mountedBelow(dir string) bool {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return true // cannot tell: do not remove
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 {
			mp := unescapeMountinfo(fields[4])
			if mp == dir || strings.HasPrefix(mp, dir+string(filepath.Separator)) {
				return true
			}
		}
	}
	return sc.Err() != nil
}

// unescapeMountinfo undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
