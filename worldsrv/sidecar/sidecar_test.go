//go:build linux

package sidecar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// etherWait bounds a real ether's start (a race-built binary on a shared
// 2-core machine).
const etherWait = 60 * time.Second

// The dies-with-the-world test re-execs this test binary as a world:
// TestMain sees worldEnv (the sidecar's Config as JSON), runs the sidecar,
// writes ether's pid to worldPIDEnv's file and waits to be killed.
const (
	worldEnv    = "SIDECAR_TEST_WORLD"
	worldPIDEnv = "SIDECAR_TEST_PIDFILE"
)

func TestMain(m *testing.M) {
	if js := os.Getenv(worldEnv); js != "" {
		if err := runWorld(js, os.Getenv(worldPIDEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "world:", err)
			os.Exit(1)
		}
		select {} // a world serving until it is killed
	}
	pgtest.Main(m)
}

func runWorld(js, pidFile string) error {
	var cfg Config
	if err := json.Unmarshal([]byte(js), &cfg); err != nil {
		return err
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	s, err := New(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), etherWait)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		return err
	}
	if err := s.Wait(ctx); err != nil {
		return err
	}
	tmp := pidFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(s.PID())), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, pidFile)
}

type testWriter struct {
	t   testing.TB
	out *testbin.Output
}

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return w.out.Write(p)
}

// testConfig is a sidecar of node 10 for the real ether binary, on a free
// port, its own NATS server and a fresh database; the log goes to t.Log
// and to the returned Output.
func testConfig(t *testing.T) (Config, *testbin.Output) {
	t.Helper()
	ns := natstest.Start(t)
	db, err := flagval.ParseDB(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	out := &testbin.Output{}
	return Config{
		Binary:      testbin.Build(t, "./ether/cmd/ether"),
		NodeID:      10,
		Port:        natstest.FreePort(t),
		DB:          db,
		Cluster:     []string{ns.URL()},
		ClusterName: "sidecar" + strconv.Itoa(os.Getpid()),
		LinkToken:   "s3cret-token",
		Env:         map[string]string{"GORACE": "atexit_sleep_ms=0"}, // a race-built ether exits at once
		Dir:         t.TempDir(),
		Logger:      slog.New(slog.NewTextHandler(testWriter{t, out}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		StopTimeout: 20 * time.Second,
	}, out
}

// startSidecar starts a sidecar and waits for its port; Stop is deferred
// to the test's cleanup.
func startSidecar(t *testing.T, cfg Config) *Sidecar {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), etherWait)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// gone reports whether pid no longer runs: no such process, or a zombie
// nobody reaped yet.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

func accepts(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// environOf is a process's environment, from /proc.
func environOf(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

func TestSidecar_StartWaitStop(t *testing.T) {
	t.Setenv("WORLD_SECRET", "not for ether")
	cfg, out := testConfig(t)
	s := startSidecar(t, cfg)
	pid := s.PID()
	if pid == 0 || !accepts(s.Addr()) {
		t.Fatalf("pid %d, %s accepts: %v", pid, s.Addr(), accepts(s.Addr()))
	}
	env := environOf(t, pid)
	for k, want := range map[string]string{"RS_NODE_ID": "10", "RS_ETHER_PORT": strconv.Itoa(cfg.Port),
		"RS_DB_NAME": cfg.DB.Name, "RS_CLUSTER_HOSTS": cfg.Cluster[0], "RS_LINK_TOKEN": cfg.LinkToken,
		"PATH": os.Getenv("PATH")} {
		if env[k] != want {
			t.Errorf("ether's %s = %q, want %q", k, env[k], want)
		}
	}
	if v, ok := env["WORLD_SECRET"]; ok {
		t.Errorf("ether got the world's whole environment (WORLD_SECRET=%q)", v)
	}
	// ether's own log lines reach the world's log, tagged, at their level.
	poll.True(t, etherWait, "ether's ready line in the world's log", func() bool {
		return strings.Contains(out.String(), "level=INFO msg=\"time=") && strings.Contains(out.String(), "ether ready") &&
			strings.Contains(out.String(), "component=ether")
	})
	poll.Until(t, etherWait, func() error {
		if st := s.Status(); st.State != wire.StateRunning {
			return fmt.Errorf("state %s, want running once ether logged ready", st.State)
		}
		return nil
	})

	ctx, cancel := context.WithTimeout(context.Background(), etherWait)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if !gone(pid) || accepts(s.Addr()) {
		t.Fatalf("after Stop: pid %d gone %v, port accepts %v", pid, gone(pid), accepts(s.Addr()))
	}
	if st := s.Status(); st.State != wire.StateStopped || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("after Stop: %+v, want stopped with exit code 0 (a clean SIGTERM stop)", st)
	}
	if !strings.Contains(out.String(), "ether stopped") {
		t.Error("ether's clean-stop line is not in the world's log")
	}
	if err := s.Stop(ctx); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestSidecar_KilledEtherIsRestarted(t *testing.T) {
	cfg, _ := testConfig(t)
	s := startSidecar(t, cfg)
	first := s.PID()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 10*time.Second, "killed ether gone", func() bool { return gone(first) })
	var second int
	poll.Until(t, etherWait, func() error {
		st := s.Status()
		if second = st.PID; second == 0 || second == first {
			return fmt.Errorf("no new ether yet: %+v", st)
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), etherWait)
	defer cancel()
	if err := s.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); st.Restarts != 1 || st.CrashCount != 1 {
		t.Fatalf("after one crash: %+v, want 1 restart", st)
	}
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if !gone(second) {
		t.Fatalf("restarted ether %d still runs after Stop", second)
	}
}

// Stop during the crash backoff cancels the pending restart.
func TestSidecar_StopDuringBackoffStartsNoEther(t *testing.T) {
	cfg, _ := testConfig(t)
	s := startSidecar(t, cfg)
	pid := s.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, func() error {
		if st := s.Status(); st.State != wire.StateCrashed || st.RestartIn == nil {
			return fmt.Errorf("not waiting to restart: %+v", st)
		}
		return nil
	})
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); st.State != wire.StateStopped || st.PID != 0 || st.RestartIn != nil {
		t.Fatalf("after Stop in the backoff: %+v", st)
	}
}

// A port held by another program is not ether's: Wait fails with ether's
// own complaint instead of taking the squatter for the sidecar.
func TestSidecar_WaitOnATakenPortFails(t *testing.T) {
	cfg, _ := testConfig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg.Port = ln.Addr().(*net.TCPAddr).Port
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	err = s.Wait(ctx)
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Wait with the port taken: %v", err)
	}
	t.Log(err)
}

func TestSidecar_MigrateFailureIsAClearError(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.DB.Port = natstest.FreePort(t) // nothing listens there
	cfg.DB.Pass = "hunter2-sidecar"
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	err = s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ether migrate") || !strings.Contains(err.Error(), "ether said:") ||
		!strings.Contains(err.Error(), strconv.Itoa(cfg.DB.Port)) {
		t.Fatalf("Start with an unreachable database: %v; want the migrate step, ether's words and the port", err)
	}
	if strings.Contains(err.Error(), cfg.DB.Pass) {
		t.Fatalf("the error shows the database password: %v", err)
	}
	if st := s.Status(); st.PID != 0 || st.State != wire.StateStopped {
		t.Fatalf("ether run was started after a failed migrate: %+v", st)
	}
}

// silentServer is a database "server" that accepts connections and never
// answers; it returns its port.
func silentServer(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestSidecar_MigrateTimeout(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.DB.Port = silentServer(t)
	cfg.MigrateTimeout = 2 * time.Second
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	start := time.Now()
	err = s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ether migrate") || time.Since(start) > 15*time.Second {
		t.Fatalf("Start against a silent database: %v after %v", err, time.Since(start))
	}
}

// startWorld re-execs the test binary as a world running a sidecar with
// cfg; it writes ether's pid to the returned file once ether is ready.
func startWorld(t *testing.T, cfg Config) (*exec.Cmd, string, *testbin.Output) {
	t.Helper()
	cfg.Dir = "" // the world's own temporary dir
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "ether.pid")
	world := exec.Command(os.Args[0], "-test.run=^$")
	world.Env = append(testbin.Env(), worldEnv+"="+string(js), worldPIDEnv+"="+pidFile)
	wout := &testbin.Output{}
	world.Stdout, world.Stderr = wout, wout
	if err := world.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = world.Process.Kill(); _ = world.Wait() })
	return world, pidFile, wout
}

// childrenOf lists the children of pid (Linux /proc).
func childrenOf(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, w := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(w); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// kill -9 of the world during `ether migrate` leaves no migrate behind.
func TestSidecar_MigrateDiesWithTheWorld(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.DB.Port = silentServer(t) // migrate hangs until its timeout
	cfg.MigrateTimeout = time.Minute
	world, _, wout := startWorld(t, cfg)
	var pid int
	poll.Until(t, etherWait, func() error {
		for _, c := range childrenOf(world.Process.Pid) {
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c)); strings.Contains(string(b), "migrate") {
				pid = c
				return nil
			}
		}
		return fmt.Errorf("no ether migrate under the world yet\n%s", wout.String())
	})
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := world.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = world.Wait()
	poll.True(t, 10*time.Second, fmt.Sprintf("ether migrate %d gone after kill -9 of its world", pid),
		func() bool { return gone(pid) })
}

// kill -9 of the world leaves no ether behind.
func TestSidecar_DiesWithTheWorld(t *testing.T) {
	cfg, _ := testConfig(t)
	world, pidFile, wout := startWorld(t, cfg)
	var pid int
	poll.Until(t, etherWait, func() error {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return fmt.Errorf("no ether pid from the world yet: %v\n%s", err, wout.String())
		}
		pid, err = strconv.Atoi(string(b))
		return err
	})
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if gone(pid) || !accepts(net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Port))) {
		t.Fatalf("the world's ether %d is not serving", pid)
	}
	if err := world.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = world.Wait()
	poll.True(t, 10*time.Second, fmt.Sprintf("ether %d gone after kill -9 of its world", pid),
		func() bool { return gone(pid) })
}

func TestLineLevel(t *testing.T) {
	tests := []struct {
		line string
		want slog.Level
		ok   bool
	}{
		{`time=2026-11-23T23:00:00Z level=INFO msg="ether ready" node=10`, slog.LevelInfo, true},
		{`time=x level=WARN msg=y`, slog.LevelWarn, true},
		{`time=x level=ERROR msg=y`, slog.LevelError, true},
		{`time=x level=DEBUG msg=y`, slog.LevelDebug, true},
		{`panic: runtime error`, 0, false},
		{`xlevel=INFO`, 0, false},
		{`level=LOUD msg=y`, 0, false},
	}
	for _, tt := range tests {
		got, ok := lineLevel(tt.line)
		if ok != tt.ok || got != tt.want {
			t.Errorf("lineLevel(%q) = %v, %v; want %v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}
