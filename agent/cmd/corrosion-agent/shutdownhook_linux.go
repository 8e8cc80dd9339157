package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// shutdownHook is `corrosion-agent shutdown-hook` (shutdownhook.go).
func shutdownHook(stderr io.Writer) int {
	env := hookEnv{
		systemState: systemState,
		signal:      func(pid int) error { return syscall.Kill(pid, hostShutdownSignal) },
		alive:       processAlive,
		mainPID:     os.Getenv("MAINPID"),
		wait:        hookWait, poll: hookPoll,
		sleep: sleepCtx,
	}
	return runHook(context.Background(), env, stderr)
}

// systemState is the output of `systemctl is-system-running`.
func systemState(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "systemctl", "is-system-running").Output()
	return string(out), err
}

// processAlive: pid exists and has not exited (an exited child not yet
// reaped by systemd is a zombie: state Z in /proc/PID/stat).
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	st := b[i+2]
	return st != 'Z' && st != 'X'
}
