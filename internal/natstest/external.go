package natstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corrosion/corrosion/internal/testbin"
)

// EnvBinary names the external nats-server binary. Default: nats-server on
// $PATH, then /usr/sbin/nats-server (where Debian's package puts it).
const EnvBinary = "NATSTEST_BINARY"

// externalBinary is the machine's nats-server.
type externalBinary struct {
	t       testing.TB
	path    string
	version string // e.g. "v2.9.10"
}

// findExternal locates the binary or fails the test: a missing binary is
// an error (in CI and elsewhere), never a skip.
func findExternal(t testing.TB) *externalBinary {
	t.Helper()
	path := os.Getenv(EnvBinary)
	if path == "" {
		for _, c := range []string{"nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server"} {
			if p, err := exec.LookPath(c); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		ci := ""
		if os.Getenv("CI") != "" {
			ci = " (CI is set: .ci/run installs it)"
		}
		t.Fatalf("natstest: no nats-server binary for the external-server tests%s: install it (Debian: apt-get install nats-server) or set %s", ci, EnvBinary)
	}
	out, err := exec.Command(path, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("natstest: %s --version: %v: %s", path, err, out)
	}
	v := strings.TrimSpace(string(out))
	v = v[strings.LastIndexByte(v, ' ')+1:]
	t.Logf("natstest: external nats-server %s (%s)", v, path)
	return &externalBinary{t: t, path: path, version: v}
}

// process is one run of the external binary.
type process struct {
	t      testing.TB
	cmd    *exec.Cmd
	out    *testbin.Output
	exited chan struct{} // closed when the process has been reaped
}

// start runs the binary on 127.0.0.1:port with JetStream stored under dir
// and waits until JetStream answers.
func (b *externalBinary) start(port int, dir string) (*process, error) {
	conf := filepath.Join(dir, "nats-server.conf")
	text := fmt.Sprintf("server_name: natstest-%d\nlisten: \"127.0.0.1:%d\"\nmax_payload: 8MB\njetstream {\n  store_dir: %q\n}\n",
		port, port, filepath.Join(dir, "js"))
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", conf, err)
	}
	p := &process{t: b.t, out: &testbin.Output{}, exited: make(chan struct{})}
	p.cmd = exec.Command(b.path, "-c", conf)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = dieWithTest()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", b.path, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	if err := p.waitReady(url, 15*time.Second); err != nil {
		p.stop()
		return nil, fmt.Errorf("nats-server %s on %s: %w; its output:\n%s", b.version, url, err, p.out.String())
	}
	return p, nil
}

func (p *process) waitReady(url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return errors.New("exited")
		default:
		}
		if last = jetStreamUp(url); last == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("not ready after %v: %w", timeout, last)
}

// jetStreamUp connects once and asks JetStream for the account's info.
func jetStreamUp(url string) error {
	nc, err := nats.Connect(url, nats.Timeout(time.Second), nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// stop ends the process: SIGTERM, then SIGKILL after 10 s. On a failed test
// the server's output goes to the test log.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	if p.t.Failed() {
		p.t.Logf("natstest: nats-server output:\n%s", p.out.String())
	}
}

// waitMetaLeader waits until a cluster's JetStream answers (it has elected
// a meta leader).
func waitMetaLeader(t testing.TB, s *Server) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := jetStreamUp(s.URL())
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("natstest: cluster JetStream not ready after 30s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
