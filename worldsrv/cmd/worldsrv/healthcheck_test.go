package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
	"github.com/corrosion/corrosion/worldsrv/httpapi"
)

// healthcheckRun runs the real `worldsrv healthcheck` with args and env.
func healthcheckRun(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(testbin.Build(t, "./worldsrv/cmd/worldsrv"), append([]string{"healthcheck"}, args...)...)
	cmd.Env = append(testbin.Env(), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// TestHealthcheck_FollowsReady: a world that answers /ready 200 passes, one
// whose sidecar is not linked (/ready 503) fails, and so does a port nobody
// listens on.
func TestHealthcheck_FollowsReady(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	off := start(t, append([]string{"--ether", "off"}, dbFlags(t, dsn)...)...)
	offListen := "--http-listen=127.0.0.1:" + strconv.Itoa(off.httpPort())
	if code, out, errOut := healthcheckRun(t, nil, offListen); code != 0 || !strings.Contains(out, "ready: "+off.http+"/ready") {
		t.Fatalf("ready world: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	unlinked := launch(t, append([]string{"--ether", "connect", "--ether-port", strconv.Itoa(natstest.FreePort(t))}, dbFlags(t, dsn)...)...)
	listen := "--http-listen=127.0.0.1:" + strconv.Itoa(unlinked.httpPort())
	poll.Until(t, wait, func() error { // once it serves HTTP, /ready says why not
		code, _, errOut := healthcheckRun(t, nil, listen)
		if code == 1 && strings.Contains(errOut, "503") && strings.Contains(errOut, httpapi.ReasonEtherDown) {
			return nil
		}
		if code == 0 {
			t.Fatalf("healthcheck passed for a world without its sidecar")
		}
		return &exitErr{code, errOut}
	})

	off.sigterm()
	if code, _, errOut := healthcheckRun(t, nil, offListen); code != 1 || !strings.Contains(errOut, "unhealthy") {
		t.Fatalf("stopped world: exit %d, stderr %q; want 1", code, errOut)
	}
}

type exitErr struct {
	code   int
	stderr string
}

func (e *exitErr) Error() string { return "exit " + strconv.Itoa(e.code) + ": " + e.stderr }

// TestHealthcheck_PortFromNodeID: without --http-listen the URL is the
// node's HTTP port, from RS_NODE_ID as the world itself reads it.
func TestHealthcheck_PortFromNodeID(t *testing.T) {
	code, out, errOut := healthcheckRun(t, []string{"RS_NODE_ID=255"}) // 8070 + 255
	if code == 2 || !strings.Contains(out+errOut, "http://127.0.0.1:8325/ready") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want a check of http://127.0.0.1:8325/ready", code, out, errOut)
	}
	if code, _, errOut := healthcheckRun(t, nil, "--node-id", "0"); code != 2 || !strings.Contains(errOut, "node-id") {
		t.Fatalf("--node-id 0: exit %d, stderr %q; want 2 naming the flag", code, errOut)
	}
	if code, out, _ := healthcheckRun(t, nil, "--help"); code != 0 || !strings.Contains(out, "worldsrv healthcheck") {
		t.Fatalf("--help: exit %d, stdout %q", code, out)
	}
}
