package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/internal/logdest"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
	"github.com/corrosion/corrosion/worldsrv/httpapi"
	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// wait bounds anything crossing processes.
const wait = 60 * time.Second

// proc is a running worldsrv.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	out    *testbin.Output
	game   string // game address
	http   string // base URL
	exited chan struct{}
}

// dbFlags turns a database URL into worldsrv's --db-* flags; its
// password, if any, goes in a file (--db-pass-file), never on the command
// line, which every local user reads (ps).
func dbFlags(t *testing.T, dsn string) []string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--db-host", u.Hostname(), "--db-port", u.Port(), "--db-name", u.Path[1:], "--db-user", u.User.Username()}
	if pass, _ := u.User.Password(); pass != "" {
		args = append(args, "--db-pass-file", secretFile(t, pass))
	}
	return args
}

// secretFile writes secret to a file of the test's and returns its name,
// for a --*-file flag.
func secretFile(t *testing.T, secret string) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "secret")
	if err == nil {
		_, err = f.WriteString(secret + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// start runs worldsrv with args on free ports and waits for /ready.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	p := launch(t, args...)
	p.waitReady()
	return p
}

// launch runs worldsrv with args on free ports.
func launch(t *testing.T, args ...string) *proc {
	t.Helper()
	game, web, rcon := natstest.FreePort(t), natstest.FreePort(t), natstest.FreePort(t)
	args = append(args, "--game-listen", "127.0.0.1:"+strconv.Itoa(game),
		"--http-listen", "127.0.0.1:"+strconv.Itoa(web), "--rcon-listen", "127.0.0.1:"+strconv.Itoa(rcon))
	p := &proc{t: t, cmd: exec.Command(testbin.Build(t, "./worldsrv/cmd/worldsrv"), args...), out: &testbin.Output{},
		game: "127.0.0.1:" + strconv.Itoa(game), http: "http://127.0.0.1:" + strconv.Itoa(web), exited: make(chan struct{})}
	p.cmd.Env = testbin.Env()
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("worldsrv output:\n%s", p.out.String())
		}
	})
	return p
}

// waitReady polls /ready until it answers 200.
func (p *proc) waitReady() {
	t := p.t
	t.Helper()
	poll.Until(t, wait, func() error {
		select {
		case <-p.exited:
			t.Fatalf("worldsrv exited early: %v\n%s", p.cmd.ProcessState, p.out.String())
		default:
		}
		resp, err := http.Get(p.http + "/ready")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			return fmt.Errorf("/ready %d %s", resp.StatusCode, b)
		}
		return nil
	})
}

func (p *proc) get(path string) []byte {
	p.t.Helper()
	resp, err := http.Get(p.http + path)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		p.t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	return b
}

func (p *proc) status() httpapi.Status {
	p.t.Helper()
	var st httpapi.Status
	if err := json.Unmarshal(p.get("/status"), &st); err != nil {
		p.t.Fatal(err)
	}
	return st
}

// sigterm stops worldsrv and wants exit 0.
func (p *proc) sigterm() {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(wait):
		p.t.Fatal("worldsrv did not exit after SIGTERM")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		p.t.Fatalf("exit code %d after SIGTERM, want 0", code)
	}
}

// bot is a game client over TCP.
type bot struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func dial(t *testing.T, addr string) *bot {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return &bot{t: t, nc: nc, r: bufio.NewReader(nc)}
}

func (b *bot) send(m proto.Message) {
	b.t.Helper()
	if err := proto.WriteFrame(b.nc, m); err != nil {
		b.t.Fatal(err)
	}
}

func (b *bot) next() proto.WorldMessage {
	b.t.Helper()
	_ = b.nc.SetReadDeadline(time.Now().Add(wait))
	p, err := proto.ReadFrame(b.r, nil)
	if err != nil {
		b.t.Fatalf("read: %v", err)
	}
	m, err := proto.DecodeWorld(p)
	if err != nil {
		b.t.Fatal(err)
	}
	return m
}

// login logs in and returns the MapInfo and the first Position.
func (b *bot) login(name string) (proto.MapInfo, proto.Position) {
	b.t.Helper()
	b.send(proto.Login{Username: name, Password: "secret"})
	if r, ok := b.next().(*proto.LoginResponse); !ok || r.Code != proto.LoginOK {
		b.t.Fatalf("login %s: %#v, want LoginResponse 2", name, r)
	}
	var info *proto.MapInfo
	for {
		switch m := b.next().(type) {
		case *proto.MapInfo:
			info = m
		case *proto.Position:
			if info == nil {
				b.t.Fatal("Position before MapInfo")
			}
			return *info, *m
		}
	}
}

// until reads until a frame satisfies ok.
func (b *bot) until(what string, ok func(proto.WorldMessage) bool) {
	b.t.Helper()
	for {
		if ok(b.next()) {
			return
		}
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		out, err := exec.Command(testbin.Build(t, "./worldsrv/cmd/worldsrv"), arg).Output()
		if err != nil || !strings.HasPrefix(string(out), "worldsrv ") {
			t.Fatalf("worldsrv %s: %q %v", arg, out, err)
		}
	}
}

func TestBadFlagExits2(t *testing.T) {
	cmd := exec.Command(testbin.Build(t, "./worldsrv/cmd/worldsrv"), "--biome", "lava")
	cmd.Env = testbin.Env()
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !bytes.Contains(out, []byte("biome")) {
		t.Fatalf("--biome lava: %v\n%s", err, out)
	}
}

func TestEtherOff_LoginMapAndSIGTERM(t *testing.T) {
	p := start(t, append([]string{"--node-id", "10", "--ether", "off", "--seed", "0xc0ffee",
		"--license-id", "demo", "--instance-id", "world10", "--public-url", "https://play.example/w1"},
		dbFlags(t, pgtest.NewDatabase(t))...)...)
	st := p.status()
	if st.Seed != 0xc0ffee || st.Node != 10 || st.World != 1 || st.Ether != httpapi.EtherOff {
		t.Fatalf("/status %+v", st)
	}
	// Who runs it and where its client is, as the world reports them.
	if st.PublicURL != "https://play.example/w1" || st.Agent == nil || *st.Agent != (httpapi.AgentStatus{License: "demo", Instance: "world10"}) {
		t.Fatalf("/status public_url %q, agent %+v", st.PublicURL, st.Agent)
	}
	if want := fmt.Sprintf("world 1: seed 0xc0ffee biome %s", st.Biome); !strings.Contains(p.out.String(), want) {
		t.Fatalf("log lacks %q", want)
	}
	b := dial(t, p.game)
	info, pos := b.login("alice")
	if info.Seed != st.Seed || info.Biome != uint8(st.Biome) || info.Width != 256 || info.Height != 256 {
		t.Fatalf("MapInfo %+v, /status seed %#x biome %s", info, st.Seed, st.Biome)
	}
	world := terrain.Generate(st.Seed, st.Biome, 256, 256)
	if !world.Walkable(int(pos.X), int(pos.Y)) {
		t.Fatalf("spawned on an unwalkable tile %+v", pos)
	}
	bin, err := world.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if got := p.get("/map.bin"); !bytes.Equal(got, bin) {
		t.Fatalf("/map.bin is %d bytes, not the map of seed %#x (%d bytes)", len(got), st.Seed, len(bin))
	}
	wsLogin(t, "ws"+strings.TrimPrefix(p.http, "http")+"/ws", "bob", st.Seed)
	poll.True(t, wait, "/status counts the players", func() bool { return p.status().Players == 2 })
	if m := p.get("/metrics"); !bytes.Contains(m, []byte("worldsrv_players 2")) {
		t.Fatalf("/metrics lacks worldsrv_players 2:\n%s", m)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	b.until("LoggedOut shutting down", func(m proto.WorldMessage) bool {
		lo, ok := m.(*proto.LoggedOut)
		return ok && lo.Reason == proto.LogoutShutdown
	})
	p.sigterm()
}

// wsLogin logs name in over WebSocket (one frame per binary message) and
// reads up to its Position; the connection stays open until the test ends.
func wsLogin(t *testing.T, url, name string, seed uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	frame, _ := proto.AppendFrame(nil, proto.Login{Username: name, Password: "secret"})
	if err := c.Write(ctx, websocket.MessageBinary, frame); err != nil {
		t.Fatal(err)
	}
	var got []proto.WorldOp
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("websocket login: %v after %v", err, got)
		}
		payload, err := proto.DecodeFrame(msg)
		if err != nil {
			t.Fatal(err)
		}
		m, err := proto.DecodeWorld(payload)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.Op())
		switch m := m.(type) {
		case *proto.LoginResponse:
			if m.Code != proto.LoginOK {
				t.Fatalf("websocket login: code %d", m.Code)
			}
		case *proto.MapInfo:
			if m.Seed != seed {
				t.Fatalf("websocket MapInfo seed %#x, want %#x", m.Seed, seed)
			}
		case *proto.Position:
			if len(got) < 3 || got[0] != proto.OpLoginResponse {
				t.Fatalf("websocket login frames %v", got)
			}
			return
		}
	}
}

// With its sidecar spawned (the real ether on a real NATS), a player's
// position survives the world's SIGTERM and restart.
func TestEtherSpawn_PositionSavedAcrossRestart(t *testing.T) {
	ns := natstest.Start(t)
	args := append([]string{"--node-id", "10", "--ether", "spawn", "--ether-port", strconv.Itoa(natstest.FreePort(t)),
		"--ether-bin", testbin.Build(t, "./ether/cmd/ether"), "--cluster", ns.URL()},
		dbFlags(t, pgtest.NewDatabase(t))...)
	p := start(t, args...)
	if st := p.status(); st.Ether != httpapi.EtherUp {
		t.Fatalf("/status ether %q, want up", st.Ether)
	}
	b := dial(t, p.game)
	_, pos := b.login("walker")
	spawns := terrain.Generate(p.status().Seed, p.status().Biome, 256, 256).Spawns()
	target := spawns[0]
	if target == (terrain.Point{X: pos.X, Y: pos.Y}) {
		target = spawns[len(spawns)-1]
	}
	b.send(proto.Walk{X: target.X, Y: target.Y})
	b.until("arrived", func(m proto.WorldMessage) bool {
		at, ok := m.(*proto.Position)
		return ok && at.X == target.X && at.Y == target.Y
	})
	p.sigterm()
	p = start(t, args...)
	b = dial(t, p.game)
	if _, again := b.login("walker"); again.X != target.X || again.Y != target.Y {
		t.Fatalf("after a restart at %+v, want %+v (saved)", again, target)
	}
}

// --ether connect: the sidecar is someone else's. /ready waits for the
// link; a login goes through it; the world's SIGTERM leaves ether running.
func TestEtherConnect_ReadyFollowsTheLink(t *testing.T) {
	ns := natstest.Start(t)
	dsn := pgtest.NewDatabase(t)
	port := natstest.FreePort(t)
	p := launch(t, append([]string{"--node-id", "10", "--ether", "connect", "--ether-port", strconv.Itoa(port)},
		dbFlags(t, dsn)...)...)
	poll.Until(t, wait, func() error {
		resp, err := http.Get(p.http + "/ready")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var r httpapi.Readiness
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return err
		}
		if resp.StatusCode == http.StatusOK || r.Reason != httpapi.ReasonEtherDown {
			t.Fatalf("/ready %d %+v without a sidecar", resp.StatusCode, r)
		}
		return nil
	})
	ether := startEther(t, dsn, ns.URL(), port)
	p.waitReady()
	b := dial(t, p.game)
	b.login("linked")
	p.sigterm()
	select {
	case <-ether:
		t.Fatal("ether exited with the world it does not belong to")
	default:
	}
	nc, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), wait)
	if err != nil {
		t.Fatalf("ether no longer listens after the world stopped: %v", err)
	}
	_ = nc.Close()
}

// startEther migrates and runs the real ether on port; the channel closes
// when it exits.
func startEther(t *testing.T, dsn, nats string, port int) <-chan struct{} {
	t.Helper()
	_, exited := runEther(t, dsn, nats, port)
	return exited
}

// TestLog_StdoutWhenRunByTheAgent: run by hand, the world logs to stderr;
// run by the agent (which sets CORROSION_INSTANCE_ID, with
// CORROSION_LICENSE_ID: the world refuses one without the other) or with
// --log-stdout, to stdout, so the agent's console does not show its INFO
// lines as errors.
func TestLog_StdoutWhenRunByTheAgent(t *testing.T) {
	bin := testbin.Build(t, "./worldsrv/cmd/worldsrv")
	db := dbFlags(t, pgtest.NewDatabase(t))
	cases := []struct {
		name       string
		env, args  []string
		wantStdout bool
	}{
		{"by hand", nil, nil, false},
		{"by the agent", []string{"CORROSION_LICENSE_ID=demo", logdest.AgentEnv + "=world10"}, nil, true},
		{"--log-stdout", nil, []string{"--log-stdout"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--node-id", "10", "--ether", "off",
				"--game-listen", "127.0.0.1:" + strconv.Itoa(natstest.FreePort(t)),
				"--http-listen", "127.0.0.1:" + strconv.Itoa(natstest.FreePort(t)),
				"--rcon-listen", "127.0.0.1:" + strconv.Itoa(natstest.FreePort(t))}, db...)
			cmd := exec.Command(bin, append(args, tc.args...)...)
			cmd.Env = append(testbin.Env(), tc.env...)
			var stdout, stderr testbin.Output
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			logs, quiet := &stderr, &stdout
			if tc.wantStdout {
				logs, quiet = &stdout, &stderr
			}
			poll.Until(t, wait, func() error {
				if !strings.Contains(logs.String(), `msg="world ready"`) {
					return errors.New("no \"world ready\" log line yet")
				}
				return nil
			})
			if strings.Contains(quiet.String(), "level=") {
				t.Fatalf("log lines on the other stream:\n%s", quiet.String())
			}
		})
	}
}

// TestConsole_StdinCommands: the world reads the admin commands from its
// stdin, as the agent writes them for the panel's console "Send", and
// answers on stdout; a stdin left open does not hold up a SIGTERM.
func TestConsole_StdinCommands(t *testing.T) {
	web := natstest.FreePort(t)
	args := append([]string{"--node-id", "10", "--ether", "off",
		"--game-listen", "127.0.0.1:" + strconv.Itoa(natstest.FreePort(t)),
		"--http-listen", "127.0.0.1:" + strconv.Itoa(web),
		"--rcon-listen", "127.0.0.1:" + strconv.Itoa(natstest.FreePort(t))}, dbFlags(t, pgtest.NewDatabase(t))...)
	cmd := exec.Command(testbin.Build(t, "./worldsrv/cmd/worldsrv"), args...)
	cmd.Env = testbin.Env()
	var stdout, stderr testbin.Output
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() { _ = cmd.Process.Kill(); <-exited }()
	poll.Until(t, wait, func() error {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(web) + "/ready")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/ready: %d", resp.StatusCode)
		}
		return nil
	})
	testbin.Converse(t, stdin, &stdout, wait,
		testbin.Exchange{Line: "status", Want: "node 10"},
		testbin.Exchange{Line: "say hello from stdin", Want: "said: hello from stdin"},
		testbin.Exchange{Line: "dance", Want: `unknown command "dance"`})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(wait):
		t.Fatal("worldsrv did not exit on SIGTERM with its stdin open")
	}
}
