//go:build linux

package supervise

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
	"golang.org/x/sys/unix"
)

// The die-with-parent tests re-exec this test binary as the supervising
// process ("parent"): TestMain sees parentEnv and, instead of running the
// tests, supervises the fake game and waits to be killed.
const (
	parentEnv     = "SUPERVISE_TEST_PARENT" // "die" or "outlive"
	parentGameEnv = "SUPERVISE_TEST_GAME"   // the fake game's binary
	parentDirEnv  = "SUPERVISE_TEST_DIR"    // state dir; the parent writes child.json there
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(parentEnv); mode != "" {
		if err := runParent(mode == "die", os.Getenv(parentGameEnv), os.Getenv(parentDirEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "parent:", err)
			os.Exit(1)
		}
		select {} // supervise until killed
	}
	os.Exit(m.Run())
}

// runParent starts the fake game under a supervisor and records its
// identity in dir/child.json.
func runParent(die bool, game, dir string) error {
	cfg := &config.Instance{ID: "child", Game: "generic", Root: dir, Exec: game, Restart: config.RestartNever,
		StopTimeoutSeconds: 5}
	s, err := New(Options{Instance: cfg, Policy: Policy{Restart: config.RestartNever}, Dir: dir, Sink: &recSink{},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DieWithParent: die})
	if err != nil {
		return err
	}
	if err := s.Start(true); err != nil {
		return err
	}
	s.mu.Lock()
	id := s.run.id
	s.mu.Unlock()
	b, _ := json.Marshal(id)
	tmp := filepath.Join(dir, "child.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "child.json"))
}

// startParent re-execs the test binary as a supervising parent and returns
// it with the identity of the child it started.
func startParent(t *testing.T, mode string) (*exec.Cmd, ident, string) {
	t.Helper()
	dir := t.TempDir()
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"="+mode, parentDirEnv+"="+dir,
		parentGameEnv+"="+testbin.Build(t, "./tools/fakegame"))
	out := &testbin.Output{}
	parent.Stdout, parent.Stderr = out, out
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = parent.Process.Kill(); _ = parent.Wait() })
	var child ident
	poll.Until(t, 20*time.Second, func() error {
		b, err := os.ReadFile(filepath.Join(dir, "child.json"))
		if err != nil {
			return fmt.Errorf("no child recorded: %v; parent output %q", err, out.String())
		}
		return json.Unmarshal(b, &child)
	})
	if !child.alive() {
		t.Fatalf("child %d is not running", child.PID)
	}
	t.Cleanup(func() { _ = killTree(child.PID) })
	return parent, child, dir
}

// killParent kills the parent with SIGKILL and reaps it. The kernel sends
// a parent-death signal during the parent's exit, so by the time Wait
// returns any such signal has been sent.
func killParent(t *testing.T, parent *exec.Cmd) {
	t.Helper()
	if err := parent.Process.Signal(unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
}

// echoes writes line to the child's stdin FIFO and waits for the fake
// game's echo in its stdout log: proof that the child still runs.
func echoes(t *testing.T, dir, line string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "stdin.fifo"), os.O_RDWR|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 10*time.Second, "echo of "+line, func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "stdout.log"))
		return strings.Contains(string(b), "echo: "+line)
	})
}

func TestSupervisor_DieWithParent_ChildKilledWithParent(t *testing.T) {
	parent, child, dir := startParent(t, "die")
	echoes(t, dir, "before")
	killParent(t, parent)
	poll.True(t, 10*time.Second, fmt.Sprintf("child %d gone after kill -9 of its parent", child.PID),
		func() bool { return !child.alive() })
}

// Without the option (the agent's games) the child outlives its parent.
func TestSupervisor_WithoutDieWithParent_ChildOutlivesParent(t *testing.T) {
	parent, child, dir := startParent(t, "outlive")
	killParent(t, parent)
	// A pending SIGKILL would have been sent before Wait returned, and a
	// process with SIGKILL pending runs no more user code: an echo now
	// proves the child survived.
	echoes(t, dir, "after")
	if !child.alive() {
		t.Fatalf("child %d died with its parent", child.PID)
	}
	if err := killTree(child.PID); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 10*time.Second, "child cleaned up", func() bool { return !child.alive() })
}

// The parent-death signal fires when the thread that forked the child
// exits. Start called from a goroutine that locks its thread and exits
// without unlocking retires that thread; the child must not die of it.
func TestSupervisor_DieWithParent_SurvivesTheStartingThreadExiting(t *testing.T) {
	dir := t.TempDir()
	cfg := &config.Instance{ID: "game", Game: "generic", Root: t.TempDir(),
		Exec: testbin.Build(t, "./tools/fakegame"), StopTimeoutSeconds: 5, Restart: config.RestartNever}
	s, err := New(Options{Instance: cfg, Policy: fastPolicy(config.RestartNever), Dir: dir, Sink: &recSink{},
		Logger: testLogger(t), DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if st := s.Status(); st.PID != 0 {
			_ = killTree(st.PID)
		}
		s.Close()
	})
	type started struct {
		tid int
		err error
	}
	// The runtime never retires the main thread (it parks it instead), so
	// Start runs on the first locked thread that is not the main one.
	var st started
	for try := 0; try < 10 && st.tid == 0; try++ {
		ch := make(chan started, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with this goroutine
			if unix.Gettid() == os.Getpid() {
				ch <- started{}
				return
			}
			ch <- started{unix.Gettid(), s.Start(true)}
		}()
		st = <-ch
	}
	if st.tid == 0 || st.err != nil {
		t.Fatalf("start from a locked thread: tid %d, %v", st.tid, st.err)
	}
	pid := s.Status().PID
	poll.True(t, 10*time.Second, fmt.Sprintf("starting thread %d retired", st.tid), func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", st.tid))
		return os.IsNotExist(err)
	})
	echoes(t, dir, "still here")
	if got := s.Status(); got.PID != pid || got.State != wire.StateRunning {
		t.Fatalf("child %d: status %+v after its starting thread exited", pid, got)
	}
}
