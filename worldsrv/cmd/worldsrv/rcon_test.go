package main

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	gorcon "github.com/gorcon/rcon"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

const rconPassword = "hunter2-admin"

// rconPort is the Source RCON port launch gave p (--rcon-listen).
func (p *proc) rconPort() int {
	p.t.Helper()
	args := p.cmd.Args
	for i := range len(args) - 1 {
		if args[i] == "--rcon-listen" {
			_, port, err := net.SplitHostPort(args[i+1])
			if n, aerr := strconv.Atoi(port); err == nil && aerr == nil {
				return n
			}
		}
	}
	p.t.Fatal("no --rcon-listen in worldsrv's arguments")
	return 0
}

// httpPort is p's HTTP port (WebRCON).
func (p *proc) httpPort() int {
	p.t.Helper()
	n, err := strconv.Atoi(p.http[strings.LastIndexByte(p.http, ':')+1:])
	if err != nil {
		p.t.Fatal(err)
	}
	return n
}

// admins are the agent's RCON clients of both kinds, by kind.
func (p *proc) admin(kind rcon.Kind, password string) *rcon.Client {
	p.t.Helper()
	cfg := rcon.Config{Kind: kind, Password: password, Timeout: wait, Port: p.rconPort()}
	if kind == rcon.KindWebRCON {
		cfg.Port, cfg.WebRCONPath = p.httpPort(), "/rcon/"
	}
	c, err := rcon.New(cfg)
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { _ = c.Close() })
	return c
}

// exec runs line on c and wants a reply containing every one of want.
func execWant(t *testing.T, c *rcon.Client, line string, want ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	reply, err := c.Exec(ctx, line)
	if err != nil {
		t.Fatalf("%s %q: %v", c.Kind(), line, err)
	}
	for _, w := range want {
		if !strings.Contains(strings.ToLower(reply), strings.ToLower(w)) {
			t.Fatalf("%s %q = %q, want it to contain %q", c.Kind(), line, reply, w)
		}
	}
	return reply
}

// loggedIn dials the game port and logs name in.
func (p *proc) loggedIn(name string) *bot {
	p.t.Helper()
	b := dial(p.t, p.game)
	b.login(name)
	return b
}

// waitSystem reads until a SystemMessage with text arrives.
func (b *bot) waitSystem(text string) {
	b.t.Helper()
	b.until("system message "+text, func(m proto.WorldMessage) bool {
		s, ok := m.(*proto.SystemMessage)
		return ok && s.Text == text
	})
}

// waitLoggedOut reads until LoggedOut, wants reason, then wants the world
// to close the connection.
func (b *bot) waitLoggedOut(reason proto.LogoutReason) {
	b.t.Helper()
	for {
		m := b.next()
		if lo, ok := m.(*proto.LoggedOut); ok {
			if lo.Reason != reason {
				b.t.Fatalf("LoggedOut reason %v, want %v", lo.Reason, reason)
			}
			break
		}
	}
	_ = b.nc.SetReadDeadline(time.Now().Add(wait))
	_, err := proto.ReadFrame(b.r, nil)
	var ne net.Error
	if err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		b.t.Fatalf("connection still open after LoggedOut: %v", err)
	}
}

// Every admin command over Source RCON and WebRCON, with the agent's RCON
// client; status also with gorcon; a wrong password refused; shutdown 1
// counts down, logs the player out (shutting down) and exits 0.
func TestRCON_EveryCommandBothKinds(t *testing.T) {
	p := start(t, append([]string{"--node-id", "10", "--ether", "off", "--rcon-password-file", secretFile(t, rconPassword)},
		dbFlags(t, pgtest.NewDatabase(t))...)...)
	if strings.Contains(p.out.String(), "serves no admin console") {
		t.Fatal("worldsrv still warns that RCON is not served")
	}
	alice := p.loggedIn("alice")
	kinds := []rcon.Kind{rcon.KindSource, rcon.KindWebRCON}
	for _, kind := range kinds {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		_, err := p.admin(kind, "not the password").Exec(ctx, "status")
		cancel()
		if !errors.Is(err, rcon.ErrAuth) {
			t.Fatalf("%s with a wrong password: %v, want ErrAuth", kind, err)
		}
	}
	for _, kind := range kinds {
		c := p.admin(kind, rconPassword)
		execWant(t, c, "status", "node 10", "players 1/2000", "ether off")
		execWant(t, c, "players", "1 player online", "alice")
		execWant(t, c, "say hello over "+string(kind), "said")
		alice.waitSystem("hello over " + string(kind))
		execWant(t, c, "save", "saved 1 player")
		execWant(t, c, "help", "shutdown")
	}

	g, err := gorcon.Dial("127.0.0.1:"+strconv.Itoa(p.rconPort()), rconPassword, gorcon.SetDeadline(wait))
	if err != nil {
		t.Fatalf("gorcon: %v", err)
	}
	reply, err := g.Execute("status")
	_ = g.Close()
	if err != nil || !strings.Contains(reply, "node 10") {
		t.Fatalf("gorcon status = %q, %v", reply, err)
	}

	src, web := p.admin(rcon.KindSource, rconPassword), p.admin(rcon.KindWebRCON, rconPassword)
	execWant(t, src, "kick alice", "kicked")
	alice.waitLoggedOut(proto.LogoutKicked)
	bob := p.loggedIn("bob")
	execWant(t, web, "kick bob", "kicked")
	bob.waitLoggedOut(proto.LogoutKicked)
	execWant(t, web, "players", "no players online")

	carol := p.loggedIn("carol")
	execWant(t, src, "shutdown 1", "shutting down in 1 second")
	carol.waitSystem("World shutting down in 1 second")
	carol.waitLoggedOut(proto.LogoutShutdown)
	select {
	case <-p.exited:
	case <-time.After(wait):
		t.Fatal("worldsrv did not exit after shutdown 1")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d after shutdown, want 0", code)
	}
}

// Without --rcon-password there is no admin console: nothing on the RCON
// port, /rcon/ is not found.
func TestRCON_OffWithoutPassword(t *testing.T) {
	p := start(t, append([]string{"--node-id", "10", "--ether", "off"}, dbFlags(t, pgtest.NewDatabase(t))...)...)
	if nc, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(p.rconPort()), time.Second); err == nil {
		_ = nc.Close()
		t.Fatal("the RCON port accepts without --rcon-password")
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := p.admin(rcon.KindWebRCON, "anything").Exec(ctx, "status"); err == nil {
		t.Fatal("WebRCON answered without --rcon-password")
	}
	for line := range strings.Lines(p.out.String()) {
		if strings.Contains(line, "level=WARN") && strings.Contains(strings.ToLower(line), "rcon") {
			t.Fatalf("a warning about RCON without --rcon-password: %s", line)
		}
	}
}

// "shutdown" with no delay over WebRCON: the operator gets the reply, the
// player is logged out (shutting down) and the process exits 0.
func TestRCON_ShutdownNowRepliesThenExits0(t *testing.T) {
	p := start(t, append([]string{"--node-id", "11", "--ether", "off", "--rcon-password-file", secretFile(t, rconPassword)},
		dbFlags(t, pgtest.NewDatabase(t))...)...)
	dave := p.loggedIn("dave")
	execWant(t, p.admin(rcon.KindWebRCON, rconPassword), "shutdown", "shutting down now")
	dave.waitSystem("World shutting down now.")
	dave.waitLoggedOut(proto.LogoutShutdown)
	select {
	case <-p.exited:
	case <-time.After(wait):
		t.Fatal("worldsrv did not exit after shutdown")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d after shutdown, want 0", code)
	}
}
