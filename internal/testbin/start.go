package testbin

import (
	"os/exec"
	"testing"
)

// Start starts cmd for the rest of the test, its stdout and stderr
// collected in out: when the test ends the process is killed and waited
// for, and a failed test logs its output under name. exited is closed when
// the process has exited (on its own or killed).
func Start(t testing.TB, name string, cmd *exec.Cmd) (out *Output, exited <-chan struct{}) {
	t.Helper()
	out = &Output{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out)
		}
	})
	return out, done
}
