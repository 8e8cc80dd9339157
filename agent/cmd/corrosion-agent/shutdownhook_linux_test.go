package main

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hookEnvFor is the hook's real environment (signal, /proc) with the
// system state given and pid as $MAINPID.
func hookEnvFor(state string, pid int) hookEnv {
	return hookEnv{
		systemState: func(context.Context) (string, error) { return state, nil },
		signal:      func(pid int) error { return syscall.Kill(pid, hostShutdownSignal) },
		alive:       processAlive,
		mainPID:     strconv.Itoa(pid),
		wait:        10 * time.Second, poll: 10 * time.Millisecond,
		sleep: sleepCtx,
	}
}

// startSleeper starts a process that SIGUSR2 ends (its default action),
// standing in for the agent. It is left unreaped (a zombie once it
// exits), as systemd's child may be for a moment.
func startSleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// TestShutdownHook_Stopping_SignalsAndWaits: during a host shutdown the
// hook signals $MAINPID and returns once it has exited (a zombie counts).
func TestShutdownHook_Stopping_SignalsAndWaits(t *testing.T) {
	cmd := startSleeper(t)
	var stderr bytes.Buffer
	if code := runHook(context.Background(), hookEnvFor("stopping\n", cmd.Process.Pid), &stderr); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, stderr.String())
	}
	if processAlive(cmd.Process.Pid) {
		t.Error("the hook returned while the agent still runs")
	}
	if !strings.Contains(stderr.String(), "has stopped the games and exited") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestShutdownHook_Running_LeavesTheAgent: on a restart (the system is
// running) the hook returns at once and signals nothing.
func TestShutdownHook_Running_LeavesTheAgent(t *testing.T) {
	cmd := startSleeper(t)
	var stderr bytes.Buffer
	for _, state := range []string{"running\n", "degraded\n"} {
		if code := runHook(context.Background(), hookEnvFor(state, cmd.Process.Pid), &stderr); code != 0 {
			t.Fatalf("%s: exit code %d:\n%s", state, code, stderr.String())
		}
	}
	if !processAlive(cmd.Process.Pid) {
		t.Error("the hook ended the agent on a restart")
	}
	if stderr.Len() != 0 {
		t.Errorf("the hook printed on a restart:\n%s", stderr.String())
	}
}

// TestShutdownHook_Stopping_GivesUpAtItsBound: an agent that does not exit
// in time: the hook stops waiting at its bound, says so, exits 1.
func TestShutdownHook_Stopping_GivesUpAtItsBound(t *testing.T) {
	cmd := startSleeper(t)
	env := hookEnvFor("stopping\n", cmd.Process.Pid)
	env.signal = func(int) error { return nil } // the agent ignores it
	env.wait = 200 * time.Millisecond
	var stderr bytes.Buffer
	if code := runHook(context.Background(), env, &stderr); code != 1 {
		t.Fatalf("exit code %d, want 1:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "still stopping the games after 200ms; systemd takes over") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestShutdownHook_NoMainPID: systemd knows no main process: nothing to do.
func TestShutdownHook_NoMainPID(t *testing.T) {
	env := hookEnvFor("stopping\n", 0)
	env.mainPID = ""
	var stderr bytes.Buffer
	if code := runHook(context.Background(), env, &stderr); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "nothing to stop") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
