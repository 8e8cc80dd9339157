package netserve

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/engine"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// closeStatus reads until the connection ends and returns the close code
// the world sent (-1: none, a browser's 1006) and whether a LoggedOut
// with reason came first.
func (c *wsClient) closeStatus(reason proto.LogoutReason) (websocket.StatusCode, bool) {
	c.t.Helper()
	var loggedOut bool
	for {
		m, err := c.next()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				c.t.Fatal("the world did not end the connection")
			}
			return websocket.CloseStatus(err), loggedOut
		}
		if lo, ok := m.(*proto.LoggedOut); ok && lo.Reason == reason {
			loggedOut = true
		}
	}
}

func TestWebSocket_LogoutEndsWithNormalClosure(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	c := dialWS(t, w.wsURL+"/ws")
	login(t, "gina", c.send, c.next)
	c.send(proto.Logout{})
	code, loggedOut := c.closeStatus(proto.LogoutRequested)
	if !loggedOut || code != websocket.StatusNormalClosure {
		t.Fatalf("after Logout: LoggedOut %v, close code %v; want LoggedOut, then %v",
			loggedOut, code, websocket.StatusNormalClosure)
	}
	poll.True(t, wait, "the session is released", func() bool { return w.srv.Stats().Open == 0 })
}

func TestWebSocket_ShutdownEndsWithGoingAway(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	c := dialWS(t, w.wsURL+"/ws")
	login(t, "hank", c.send, c.next)
	w.srv.StopAccepting()
	w.cancel() // the engine logs everyone out
	code, loggedOut := c.closeStatus(proto.LogoutShutdown)
	if !loggedOut || code != websocket.StatusGoingAway {
		t.Fatalf("at shutdown: LoggedOut %v, close code %v; want LoggedOut 2, then %v",
			loggedOut, code, websocket.StatusGoingAway)
	}
}

// Each way of breaking the protocol gets its own close code.
func TestWebSocket_BadMessagesCloseWithTheirCode(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	keepalive, _ := proto.AppendFrame(nil, proto.Keepalive{})
	var counted uint64 // the listener's BadFrames so far
	for _, tc := range []struct {
		name string
		typ  websocket.MessageType
		msg  []byte
		want websocket.StatusCode
		// byEngine: the engine, not the listener, judges (and counts) it.
		byEngine bool
	}{
		{"length over 4096", websocket.MessageBinary, []byte{0x10, 0x01, 1}, websocket.StatusMessageTooBig, false},
		{"message over 4098 bytes", websocket.MessageBinary, make([]byte, proto.MaxFrame+1), websocket.StatusMessageTooBig, false},
		{"shorter than its frame", websocket.MessageBinary, []byte{0, 5, 1}, websocket.StatusProtocolError, false},
		{"longer than its frame", websocket.MessageBinary, []byte{0, 1, 1, 9}, websocket.StatusProtocolError, false},
		{"unknown opcode", websocket.MessageBinary, []byte{0, 1, 200}, websocket.StatusProtocolError, false},
		{"first frame not Login", websocket.MessageBinary, keepalive, websocket.StatusProtocolError, true},
		{"text message", websocket.MessageText, []byte("hello"), websocket.StatusUnsupportedData, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialWS(t, w.wsURL+"/ws")
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if err := c.c.Write(ctx, tc.typ, tc.msg); err != nil {
				t.Fatal(err)
			}
			if code, _ := c.closeStatus(proto.LogoutRequested); code != tc.want {
				t.Fatalf("close code %v, want %v", code, tc.want)
			}
			if !tc.byEngine {
				counted++
			}
			poll.True(t, wait, "counted", func() bool { return w.srv.Stats().BadFrames == counted })
		})
	}
}

func TestWebSocket_FloodingEndsWithPolicyViolation(t *testing.T) {
	w := newWorld(t, engine.Config{TickInterval: 300 * time.Millisecond}, Options{})
	c := dialWS(t, w.wsURL+"/ws")
	login(t, "ivan", c.send, c.next)
	walk, _ := proto.AppendFrame(nil, proto.Walk{X: 1, Y: 1})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for range 4 * engine.DefaultInQueue { // far more than a tick takes
		if c.c.Write(ctx, websocket.MessageBinary, walk) != nil {
			break // already closed
		}
	}
	if code, _ := c.closeStatus(proto.LogoutRequested); code != websocket.StatusPolicyViolation {
		t.Fatalf("close code %v, want %v", code, websocket.StatusPolicyViolation)
	}
}

// A peer that never answers the close frame (it does not read at all) is
// released within closeHandshakeWait; what it reads later still ends with
// the world's close frame, after its LoggedOut.
func TestWebSocket_DeadPeerReleasedWithinTheBound(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	c := dialWS(t, w.wsURL+"/ws")
	login(t, "jane", c.send, c.next)
	start := time.Now()
	c.send(proto.Logout{})
	poll.True(t, closeHandshakeWait+2*time.Second, "the session is released", func() bool { return w.srv.Stats().Open == 0 })
	held := time.Since(start)
	t.Logf("released %v after Logout", held)
	if held < closeHandshakeWait/2 {
		t.Fatalf("released after %v: the world did not wait for the close handshake", held)
	}
	code, loggedOut := c.closeStatus(proto.LogoutRequested)
	if !loggedOut || code != websocket.StatusNormalClosure {
		t.Fatalf("LoggedOut %v, close code %v; want LoggedOut, then %v", loggedOut, code, websocket.StatusNormalClosure)
	}
}

// A connection the engine cannot take (its accept queue is full) is told
// to try again later.
func TestWebSocket_FullAcceptQueueTryAgainLater(t *testing.T) {
	e, err := engine.New(engine.Config{NodeID: 10, EtherOff: true, AcceptQueue: 1},
		engine.Deps{Map: testMap(), Accounts: testAccounts(t)})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.WebSocket())
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Close(ctx) // the engine never ran: the admitted one is closed here
		hs.Close()
	}()
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	first := dialWS(t, url)
	poll.True(t, wait, "first connection attached", func() bool { return srv.Stats().Accepted == 1 })
	second := dialWS(t, url)
	if code, _ := second.closeStatus(proto.LogoutRequested); code != websocket.StatusTryAgainLater {
		t.Fatalf("close code %v, want %v", code, websocket.StatusTryAgainLater)
	}
	_ = first
}
