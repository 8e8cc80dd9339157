// Package testbin builds the module's binaries (the real agent, the fake
// game process, ...) once per test process, for tests that drive them the
// way a user would. Imported only by tests.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/corrosion/corrosion/internal/childproc"
)

var (
	mu    sync.Mutex
	built = map[string]string{} // package path -> binary; guarded by mu
	dir   string                // guarded by mu
)

// Build compiles the main package pkg (a path relative to the module root,
// e.g. "./agent/cmd/corrosion-agent") and returns the binary's path.
// Binaries are cached for the life of the test process. Race-enabled test
// binaries build race-enabled binaries of our own programs; stand-ins for
// third parties' programs (the fake game) are always built plain, because
// a race-enabled binary sleeps a second at exit. Run race-enabled binaries
// with Env() to skip that sleep.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	return build(t, pkg, raceEnabled && !plain[pkg])
}

// plain lists the stand-ins that are never race-built.
var plain = map[string]bool{"./tools/fakegame": true, "./tools/fakesteamcmd": true, "./tools/natsidle": true}

// Env is the environment for running a built binary: it turns off the race
// detector's exit delay.
func Env() []string {
	return append(os.Environ(), "GORACE=atexit_sleep_ms=0")
}

func build(t testing.TB, pkg string, race bool) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatalf("testbin: %v", err)
	}
	if dir == "" {
		sweep()
		if dir, err = os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid())); err != nil {
			t.Fatalf("testbin: %v", err)
		}
	}
	out := filepath.Join(dir, childproc.ExeName(filepath.Base(pkg)))
	args := []string{"build", "-o", out}
	if race {
		args = append(args, "-race")
	}
	args = append(args, pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testbin: go build %s: %v\n%s", pkg, err, b)
	}
	built[pkg] = out
	return out
}

// dirPrefix names a test process's binary directory: the prefix, the
// process's PID, a dash and a random suffix. Nothing removes it when the
// test process ends (a package has no hook for that); the next test
// process to build sweeps the directories of processes no longer running.
const dirPrefix = "corrosion-testbin-"

// sweep removes the binary directories of test processes that have ended.
func sweep() {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), dirPrefix)
		pidText, _, dashed := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || !dashed || err != nil || !e.IsDir() || processRunning(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
	}
}

// ModuleRoot finds the directory holding go.mod, starting from the working
// directory.
func ModuleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/corrosion/corrosion") {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod of github.com/corrosion/corrosion above the working directory")
		}
		d = parent
	}
}
