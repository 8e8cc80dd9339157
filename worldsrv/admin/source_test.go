package admin_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	gorcon "github.com/gorcon/rcon"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/admin"
)

// commandCase is one console command and what must come of it; every
// client kind runs the whole table against a fresh world.
type commandCase struct {
	line     string
	want     string // substring of the reply
	wantCall string // the Console call it makes; "" for none
}

var everyCommand = []commandCase{
	{"status", "node 10  seed 3735552002  biome arctic\nplayers 2/2000", "status"},
	{"players", "2 players online: alice, bob", "players"},
	{"say Server restarts in 5 minutes", "said: Server restarts in 5 minutes", "say Server restarts in 5 minutes"},
	{"kick carol", `kick: no player named "carol" is online`, "kick carol"},
	{"kick Bob", "kicked Bob", "kick Bob"},
	{"save", "saved 1 player", "save"},
	{"shutdown 30", "shutting down in 30 seconds", "shutdown 30s"},
	{"shutdown", "a shutdown is already under way", "shutdown 0s"},
	{"shutdown -1", "not a number of seconds from 0 to 3600", ""},
	{"help", "kick <name>", ""},
	{"dance", `unknown command "dance"; commands: status, players, say, kick, save, shutdown, help`, ""},
}

// runEveryCommand runs the table through exec and checks replies and the
// calls the console saw.
func runEveryCommand(t *testing.T, w *world, exec func(line string) (string, error)) {
	t.Helper()
	w.console.setPlayers([]string{"bob", "alice"})
	for _, tc := range everyCommand {
		before := len(w.console.Calls())
		out, err := exec(tc.line)
		if err != nil {
			t.Fatalf("%q: %v", tc.line, err)
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("%q: reply %q, want it to contain %q", tc.line, out, tc.want)
		}
		calls := w.console.Calls()[before:]
		if (tc.wantCall == "" && len(calls) != 0) || (tc.wantCall != "" && (len(calls) != 1 || calls[0] != tc.wantCall)) {
			t.Errorf("%q: console calls %q, want %q", tc.line, calls, tc.wantCall)
		}
	}
}

func agentClient(t *testing.T, kind rcon.Kind, port int, password string) *rcon.Client {
	t.Helper()
	c, err := rcon.New(rcon.Config{Kind: kind, Port: port, Password: password, WebRCONPath: "/rcon/", Timeout: 15 * time.Second})
	if err != nil {
		t.Fatalf("rcon.New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func gorconDial(w *world, password string) (*gorcon.Conn, error) {
	return gorcon.Dial("127.0.0.1:"+strconv.Itoa(w.srcPort), password, gorcon.SetDeadline(10*time.Second))
}

func TestSource_EveryCommand_AgentClient(t *testing.T) {
	w := startWorld(t, admin.Config{})
	c := agentClient(t, rcon.KindSource, w.srcPort, testPassword)
	runEveryCommand(t, w, func(line string) (string, error) { return c.Exec(context.Background(), line) })
}

func TestSource_EveryCommand_Gorcon(t *testing.T) {
	w := startWorld(t, admin.Config{})
	conn, err := gorconDial(w, testPassword)
	if err != nil {
		t.Fatalf("gorcon dial: %v", err)
	}
	defer conn.Close()
	runEveryCommand(t, w, conn.Execute)
}

func TestSource_WrongPassword(t *testing.T) {
	w := startWorld(t, admin.Config{})
	c := agentClient(t, rcon.KindSource, w.srcPort, "wrong")
	if _, err := c.Exec(context.Background(), "status"); rcon.Code(err) != rcon.CodeAuth {
		t.Fatalf("agent client with a wrong password: %v (code %s), want %s", err, rcon.Code(err), rcon.CodeAuth)
	}
	if _, err := gorconDial(w, "also wrong"); !errors.Is(err, gorcon.ErrAuthFailed) {
		t.Fatalf("gorcon with a wrong password: %v, want ErrAuthFailed", err)
	}
	if calls := w.console.Calls(); len(calls) != 0 {
		t.Fatalf("the console ran %q for an unauthenticated client", calls)
	}
}

func TestSource_RateLimit_KicksInAndRecovers(t *testing.T) {
	w := startWorld(t, admin.Config{Limit: admin.LimitConfig{FreeFailures: 3, BaseBlock: 5 * time.Second}})
	for i := range 3 {
		if _, err := gorconDial(w, "guess"+strconv.Itoa(i)); !errors.Is(err, gorcon.ErrAuthFailed) {
			t.Fatalf("wrong password %d: %v", i+1, err)
		}
	}
	// Blocked: even the right password is refused, by both clients (the
	// connection is closed before auth).
	if conn, err := gorconDial(w, testPassword); err == nil {
		_ = conn.Close()
		t.Fatal("right password while blocked: logged in")
	}
	agent := agentClient(t, rcon.KindSource, w.srcPort, testPassword)
	if _, err := agent.Exec(context.Background(), "status"); rcon.Code(err) != rcon.CodeAuth {
		t.Fatalf("agent while blocked: %v", err)
	}
	w.clock.Advance(5 * time.Second)
	out, err := agent.Exec(context.Background(), "status")
	if err != nil || !strings.Contains(out, "node 10") {
		t.Fatalf("after the block: %q, %v", out, err)
	}
	if w.srv.Tracked() != 0 {
		t.Fatalf("a right password left the address tracked (%d)", w.srv.Tracked())
	}
}

func TestSource_LongReply_AgentClient(t *testing.T) {
	w := startWorld(t, admin.Config{})
	w.console.setPlayers(manyPlayers(2000))
	want := admin.Exec(context.Background(), w.console, "players").Text
	if len(want) <= 4*admin.MaxBodyBytes {
		t.Fatalf("reply of %d bytes is too short to span several packets", len(want))
	}
	c := agentClient(t, rcon.KindSource, w.srcPort, testPassword)
	for range 2 { // twice: the second reply must not be polluted by the first
		out, err := c.Exec(context.Background(), "players")
		if err != nil || out != want {
			t.Fatalf("players: %d bytes, %v; want %d bytes", len(out), err, len(want))
		}
	}
}

// TestSource_LongReply_Gorcon reassembles with gorcon's packet codec and
// the probe trick: gorcon's Execute reads a single packet (docs/rcon.md).
func TestSource_LongReply_Gorcon(t *testing.T) {
	w := startWorld(t, admin.Config{})
	w.console.setPlayers(manyPlayers(2000))
	want := admin.Exec(context.Background(), w.console, "players").Text
	nc := dialRaw(t, w.srcPort)
	if _, err := gorcon.Open(nc, testPassword); err != nil {
		t.Fatalf("gorcon auth: %v", err)
	}
	for _, p := range []*gorcon.Packet{
		gorcon.NewPacket(gorcon.SERVERDATA_EXECCOMMAND, 5, "players"),
		gorcon.NewPacket(gorcon.SERVERDATA_RESPONSE_VALUE, 6, ""),
	} {
		if _, err := p.WriteTo(nc); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	br := bufio.NewReader(nc)
	var got strings.Builder
	packets := 0
	for {
		var p gorcon.Packet
		if _, err := p.ReadFrom(br); err != nil {
			t.Fatalf("read packet after %d: %v", packets, err)
		}
		if p.Size > admin.MaxPacketSize {
			t.Fatalf("packet of size %d, over %d", p.Size, admin.MaxPacketSize)
		}
		if p.ID == 6 {
			break
		}
		got.WriteString(p.Body())
		packets++
	}
	if got.String() != want || packets < 5 {
		t.Fatalf("reassembled %d bytes in %d packets; want %d bytes", got.Len(), packets, len(want))
	}
}

func dialRaw(t *testing.T, port int) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { _ = nc.Close() })
	return nc
}

// authRaw authenticates nc and consumes the two answer packets.
func authRaw(t *testing.T, nc net.Conn) {
	t.Helper()
	if _, err := gorcon.Open(nc, testPassword); err != nil {
		t.Fatalf("auth: %v", err)
	}
}

// expectClosed waits for the server to close nc: EOF or a reset, never the
// read deadline.
func expectClosed(t *testing.T, nc net.Conn) {
	t.Helper()
	_, err := io.Copy(io.Discard, nc)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server did not close the connection: %v", err)
	}
}

func sizeOnly(size int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(size)) }

func TestSource_MalformedPacketsCloseTheConnection(t *testing.T) {
	w := startWorld(t, admin.Config{})
	cases := []struct {
		name string
		auth bool
		send []byte
	}{
		{"size below minimum", true, append(sizeOnly(5), 1, 2, 3, 4, 5)},
		{"negative size", true, append(sizeOnly(-20), make([]byte, 10)...)},
		{"huge size", true, append(sizeOnly(1<<30), make([]byte, 64)...)},
		{"size just over 4096", true, append(sizeOnly(admin.MaxPacketSize+1), make([]byte, 100)...)},
		{"bad padding", true, []byte{12, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 'h', 'i', 1, 1}},
		{"unknown type", true, []byte{10, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0}},
		{"command before auth", false, []byte{14, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 's', 'a', 'v', 'e', 0, 0}},
		{"garbage before auth", false, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nc := dialRaw(t, w.srcPort)
			if tc.auth {
				authRaw(t, nc)
			}
			if _, err := nc.Write(tc.send); err != nil {
				t.Fatalf("write: %v", err)
			}
			expectClosed(t, nc)
		})
	}
	if calls := w.console.Calls(); len(calls) != 0 {
		t.Fatalf("malformed input reached the console: %q", calls)
	}
	// The server is still fine.
	c := agentClient(t, rcon.KindSource, w.srcPort, testPassword)
	if out, err := c.Exec(context.Background(), "save"); err != nil || out != "saved 0 players" {
		t.Fatalf("after the malformed clients: %q, %v", out, err)
	}
}

func TestSource_SessionCap(t *testing.T) {
	w := startWorld(t, admin.Config{MaxConns: 2})
	first := dialRaw(t, w.srcPort)
	authRaw(t, first)
	second := dialRaw(t, w.srcPort)
	authRaw(t, second)
	third := dialRaw(t, w.srcPort)
	expectClosed(t, third)
	_ = first.Close()
	poll.Until(t, 10*time.Second, func() error {
		conn, err := gorconDial(w, testPassword)
		if err != nil {
			return err
		}
		return conn.Close()
	})
}

func TestSource_IdleAndAuthTimeouts(t *testing.T) {
	w := startWorld(t, admin.Config{IdleTimeout: 200 * time.Millisecond, AuthTimeout: 200 * time.Millisecond,
		Limit: admin.LimitConfig{FreeFailures: 2}})
	idle := dialRaw(t, w.srcPort)
	authRaw(t, idle)
	expectClosed(t, idle)
	// Silent connections count as failed logins: after two the address
	// is blocked, and its next connection is closed at once.
	for range 2 {
		silent := dialRaw(t, w.srcPort) // never authenticates
		expectClosed(t, silent)
	}
	nc := dialRaw(t, w.srcPort)
	_ = nc.SetDeadline(time.Now().Add(100 * time.Millisecond)) // well under AuthTimeout
	expectClosed(t, nc)
}

func TestSource_CloseEndsSessions(t *testing.T) {
	w := startWorld(t, admin.Config{})
	nc := dialRaw(t, w.srcPort)
	authRaw(t, nc)
	w.srv.Close()
	expectClosed(t, nc)
	if _, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(w.srcPort), time.Second); err == nil {
		t.Fatal("the listener still accepts after Close")
	}
}
