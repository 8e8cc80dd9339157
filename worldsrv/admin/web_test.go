package admin_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	gorcon "github.com/gorcon/rcon"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/webrcon"
	"github.com/corrosion/corrosion/worldsrv/admin"
)

func webURL(port int, password string) string {
	return "ws://127.0.0.1:" + strconv.Itoa(port) + "/rcon/" + url.PathEscape(password)
}

// dialWeb opens a raw WebRCON socket; on a refused upgrade it returns the
// HTTP response.
func dialWeb(t *testing.T, port int, password string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, webURL(port, password), nil)
	if err == nil {
		t.Cleanup(func() { _ = ws.CloseNow() })
	}
	return ws, resp, err
}

// roundTrip sends one text frame and reads one reply frame.
func roundTrip(t *testing.T, ws *websocket.Conn, typ websocket.MessageType, data []byte) webrcon.Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ws.Write(ctx, typ, data); err != nil {
		t.Fatalf("write: %v", err)
	}
	_, reply, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var f webrcon.Frame
	if err := json.Unmarshal(reply, &f); err != nil {
		t.Fatalf("reply %q: %v", reply, err)
	}
	return f
}

func TestWeb_EveryCommand_AgentClient(t *testing.T) {
	w := startWorld(t, admin.Config{})
	c := agentClient(t, rcon.KindWebRCON, w.webPort, testPassword)
	runEveryCommand(t, w, func(line string) (string, error) { return c.Exec(context.Background(), line) })
}

func TestWeb_IdentifiersAndTypes(t *testing.T) {
	w := startWorld(t, admin.Config{})
	ws, _, err := dialWeb(t, w.webPort, testPassword)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	cases := []struct {
		name  string
		typ   websocket.MessageType
		frame string
		want  webrcon.Frame
	}{
		{"command", websocket.MessageText, `{"Identifier":77,"Message":"save","Name":"WebRcon"}`,
			webrcon.Frame{Message: "saved 0 players", Identifier: 77, Type: "Generic"}},
		{"negative identifier", websocket.MessageText, `{"Identifier":-5,"Message":"players","Name":"x"}`,
			webrcon.Frame{Message: "no players online", Identifier: -5, Type: "Generic"}},
		{"large identifier", websocket.MessageText, `{"Identifier":9007199254740993,"Message":"players"}`,
			webrcon.Frame{Message: "no players online", Identifier: 9007199254740993, Type: "Generic"}},
		{"failed command", websocket.MessageText, `{"Identifier":78,"Message":"kick nobody","Name":"WebRcon"}`,
			webrcon.Frame{Message: `kick: no player named "nobody" is online`, Identifier: 78, Type: "Error"}},
		{"not JSON", websocket.MessageText, `status`,
			webrcon.Frame{Message: `bad request: want JSON {"Identifier": <int>, "Message": "<command>", "Name": "<client>"}`, Type: "Error"}},
		{"binary frame", websocket.MessageBinary, `{"Identifier":1,"Message":"status"}`,
			webrcon.Frame{Message: "bad request: send text frames of JSON", Type: "Error"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := roundTrip(t, ws, tc.typ, []byte(tc.frame)); got != tc.want {
				t.Fatalf("reply %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestWeb_WrongPassword_401BeforeUpgrade(t *testing.T) {
	w := startWorld(t, admin.Config{})
	_, resp, err := dialWeb(t, w.webPort, "wrong")
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong password: err %v, response %v; want HTTP 401", err, resp)
	}
	c := agentClient(t, rcon.KindWebRCON, w.webPort, "wrong")
	if _, err := c.Exec(context.Background(), "status"); rcon.Code(err) != rcon.CodeAuth {
		t.Fatalf("agent client: %v (code %s), want %s", err, rcon.Code(err), rcon.CodeAuth)
	}
	if _, resp, _ := dialWeb(t, w.webPort, ""); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("no password at all: %v; want the mux's 404", resp)
	}
}

// TestWeb_RateLimit_SharedWithSource: wrong passwords over Source RCON
// block the same address over WebRCON too, and the block ends.
func TestWeb_RateLimit_SharedWithSource(t *testing.T) {
	w := startWorld(t, admin.Config{Limit: admin.LimitConfig{FreeFailures: 2, BaseBlock: 30 * time.Second}})
	if _, err := gorconDial(w, "guess"); !errors.Is(err, gorcon.ErrAuthFailed) {
		t.Fatalf("wrong password over source: %v", err)
	}
	if _, resp, _ := dialWeb(t, w.webPort, "guess2"); resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("second wrong password over web: %v", resp)
	}
	_, resp, err := dialWeb(t, w.webPort, testPassword)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("Retry-After") != "30" {
		t.Fatalf("right password while blocked: err %v, response %v; want 403 with Retry-After 30", err, resp)
	}
	agent := agentClient(t, rcon.KindWebRCON, w.webPort, testPassword)
	if _, err := agent.Exec(context.Background(), "status"); rcon.Code(err) != rcon.CodeAuth {
		t.Fatalf("agent while blocked: %v", err)
	}
	w.clock.Advance(29 * time.Second)
	if _, resp, _ := dialWeb(t, w.webPort, testPassword); resp == nil || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("a second before the end: %v", resp)
	}
	w.clock.Advance(time.Second)
	if out, err := agent.Exec(context.Background(), "status"); err != nil || !strings.Contains(out, "node 10") {
		t.Fatalf("after the block: %q, %v", out, err)
	}
}

func TestWeb_LongReply_AgentClient(t *testing.T) {
	w := startWorld(t, admin.Config{})
	w.console.setPlayers(manyPlayers(2000))
	want := admin.Exec(context.Background(), w.console, "players").Text
	c := agentClient(t, rcon.KindWebRCON, w.webPort, testPassword)
	if out, err := c.Exec(context.Background(), "players"); err != nil || out != want {
		t.Fatalf("players: %d bytes, %v; want %d bytes", len(out), err, len(want))
	}
}

func TestWeb_OversizedFrameClosesSocket(t *testing.T) {
	w := startWorld(t, admin.Config{})
	ws, _, err := dialWeb(t, w.webPort, testPassword)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	big := `{"Identifier":1,"Message":"say ` + strings.Repeat("x", 64<<10) + `"}`
	_ = ws.Write(ctx, websocket.MessageText, []byte(big))
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("after a 64 KiB frame: %v; want close status 1009", err)
	}
}

func TestWeb_SessionCapAndIdle(t *testing.T) {
	w := startWorld(t, admin.Config{MaxConns: 1, IdleTimeout: 300 * time.Millisecond})
	ws, _, err := dialWeb(t, w.webPort, testPassword)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if _, resp, _ := dialWeb(t, w.webPort, testPassword); resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second session over a cap of 1: %v; want 503", resp)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("idle session: %v; want closed by the server", err)
	}
	// The slot is free once the server's handler has returned.
	c := agentClient(t, rcon.KindWebRCON, w.webPort, testPassword)
	poll.Until(t, 10*time.Second, func() error {
		_, err := c.Exec(context.Background(), "help")
		return err
	})
}

// TestWeb_MountedUnderPrefix: without a {password} pattern the rest of the
// path after /rcon/ is the password.
func TestWeb_MountedUnderPrefix(t *testing.T) {
	console := &recordingConsole{}
	srv, err := admin.New(admin.Config{Password: testPassword, Console: console})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/rcon/", srv.WebHandler())
	hs := httptest.NewServer(mux)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	port := hs.Listener.Addr().(*net.TCPAddr).Port
	if _, resp, _ := dialWeb(t, port, "nope"); resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong password: %v", resp)
	}
	c := agentClient(t, rcon.KindWebRCON, port, testPassword)
	if out, err := c.Exec(context.Background(), "players"); err != nil || out != "no players online" {
		t.Fatalf("players: %q, %v", out, err)
	}
}

// TestStalledWorld_AnswersWithinCommandTimeout: a Console that never
// answers (a stuck tick) costs the operator CommandTimeout, then a reply
// saying so, over both kinds; the sessions stay usable.
func TestStalledWorld_AnswersWithinCommandTimeout(t *testing.T) {
	w := startWorld(t, admin.Config{Console: &recordingConsole{block: make(chan struct{})}, CommandTimeout: 100 * time.Millisecond})
	for _, kind := range []rcon.Kind{rcon.KindSource, rcon.KindWebRCON} {
		port := w.srcPort
		if kind == rcon.KindWebRCON {
			port = w.webPort
		}
		c := agentClient(t, kind, port, testPassword)
		for _, line := range []string{"status", "help"} {
			out, err := c.Exec(context.Background(), line)
			if err != nil {
				t.Fatalf("%s %q: %v", kind, line, err)
			}
			if line == "status" && !strings.Contains(out, "the world did not answer in time") {
				t.Fatalf("%s status on a stalled world: %q", kind, out)
			}
		}
	}
}

func TestWeb_CloseEndsSessions(t *testing.T) {
	w := startWorld(t, admin.Config{})
	ws, _, err := dialWeb(t, w.webPort, testPassword)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	w.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := ws.Read(ctx); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("read after Close: %v; want the socket closed", err)
	}
	if _, resp, _ := dialWeb(t, w.webPort, testPassword); resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a session after Close: %v; want 503", resp)
	}
}
