//go:build unix

package pgembed

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"runtime"
	"strconv"
	"syscall"
)

var (
	sigFast = syscall.SIGINT // postgres: fast shutdown (disconnect clients, checkpoint)
	sigZero = syscall.Signal(0)
)

// postgresIDs returns the uid/gid to run as when we are root.
func postgresIDs() (uid, gid int, ok bool) {
	if os.Geteuid() != 0 {
		return 0, 0, false
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return 0, 0, false
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid, true
}

func prepareDir(dir string) error {
	uid, gid, ok := postgresIDs()
	if !ok {
		if os.Geteuid() == 0 {
			return fmt.Errorf("pgembed: running as root but there is no postgres user")
		}
		return nil
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		return fmt.Errorf("pgembed: chown data dir: %w", err)
	}
	return nil
}

func asPostgresUser(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if uid, gid, ok := postgresIDs(); ok {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
}

// dieWithParent asks the kernel to stop postgres if this process dies, so a
// crashed test binary leaves no server behind.
func dieWithParent(cmd *exec.Cmd) {
	if runtime.GOOS != "linux" {
		return
	}
	setPdeathsig(cmd.SysProcAttr, syscall.SIGQUIT)
}

// ownProcessGroup keeps postgres out of its parent's process group: a
// terminal's Ctrl-C reaches the parent (e.g. `corrosion-panel dev`), which
// stops postgres itself after whatever still writes to it.
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}
