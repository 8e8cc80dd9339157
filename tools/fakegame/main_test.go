package main_test

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

func TestFakeGame_Knobs(t *testing.T) {
	bin := testbin.Build(t, "./tools/fakegame")
	t.Run("exit code after run-for", func(t *testing.T) {
		err := exec.Command(bin, "-run-for", "10ms", "-exit-code", "7").Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
			t.Fatalf("want exit 7, got %v", err)
		}
	})
	t.Run("stop line on stdin", func(t *testing.T) {
		cmd := exec.Command(bin, "-stop-line", "quit")
		cmd.Stdin = strings.NewReader("hello\nquit\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "echo: hello") || !strings.Contains(string(out), "stop line received") {
			t.Fatalf("output %q", out)
		}
	})
	t.Run("ignores sigterm", func(t *testing.T) {
		var out testbin.Output
		cmd := exec.Command(bin, "-ignore-sigterm")
		cmd.Stdout = &out
		stdin, _ := cmd.StdinPipe()
		defer stdin.Close()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		poll.True(t, 5*time.Second, "banner", func() bool { return strings.Contains(out.String(), "pid=") })
		_ = cmd.Process.Signal(syscall.SIGTERM)
		poll.True(t, 5*time.Second, "ignoring line", func() bool { return strings.Contains(out.String(), "ignoring") })
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	t.Run("flood", func(t *testing.T) {
		out, err := exec.Command(bin, "-flood", "1000").Output()
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(out, []byte("\n")); n != 1000 {
			t.Fatalf("flood printed %d lines", n)
		}
	})
}
