package admin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/internal/webrcon"
)

// WebRCON (Rust's layout): the password is the last path segment, checked
// before the WebSocket upgrade (401 when wrong, 403 with Retry-After while
// the address is blocked, 503 at the session cap); then each text frame, a
// webrcon.Request, is a command, answered by one webrcon.Frame carrying the
// request's identifier, Type "Generic" or "Error". Commands on one socket
// run one at a time, in order.

const (
	// webPathPrefix is where the world mounts WebHandler.
	webPathPrefix = "/rcon/"
	// maxWebFrame caps a request frame: a MaxBodyBytes command with JSON
	// escaping (\u00XX is 6 bytes) and the other fields.
	maxWebFrame = 6*MaxBodyBytes + 1024
)

// WebHandler serves WebRCON. Mount it at "/rcon/{password}" (the password
// is then r.PathValue("password")) or under "/rcon/" (the rest of the path
// is the password). The request's URL holds the password: nothing here
// logs it.
func (s *Server) WebHandler() http.Handler {
	return http.HandlerFunc(s.serveWeb)
}

func (s *Server) serveWeb(w http.ResponseWriter, r *http.Request) {
	addr := r.RemoteAddr
	switch outcome, wait := s.authenticate(kindWeb, addr, webPassword(r)); outcome {
	case authBlocked:
		w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		http.Error(w, "too many wrong passwords from your address; try again later", http.StatusForbidden)
		return
	case authWrong:
		http.Error(w, "wrong rcon password", http.StatusUnauthorized)
		return
	}
	var ws *websocket.Conn
	ready := make(chan struct{})
	ss, ok := s.begin(func() {
		<-ready
		if ws != nil {
			_ = ws.CloseNow()
		}
	})
	if !ok {
		http.Error(w, "admin console busy: too many sessions open, or shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.end(ss)
	ws, err := websocket.Accept(w, r, nil)
	close(ready)
	if err != nil {
		s.log.Info("webrcon upgrade failed", "addr", addr, "err", err)
		return
	}
	ws.SetReadLimit(maxWebFrame)
	s.webSession(ws, addr)
}

// webPassword is the password in the request path.
func webPassword(r *http.Request) string {
	if p := r.PathValue("password"); p != "" {
		return p
	}
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), webPathPrefix)
	if !ok {
		return ""
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return ""
	}
	return p
}

// webSession answers command frames until the client leaves, idles out
// (closed with 1001 "idle timeout"), sends a frame over the cap (1009), or
// the server closes.
func (s *Server) webSession(ws *websocket.Conn, addr string) {
	idle := time.AfterFunc(s.cfg.IdleTimeout, func() {
		s.log.Info("webrcon session closed: idle", "addr", addr)
		_ = ws.Close(websocket.StatusGoingAway, "idle timeout")
	})
	defer idle.Stop()
	for {
		typ, data, err := ws.Read(s.life)
		if err != nil {
			s.log.Debug("webrcon session ended", "addr", addr, "err", err)
			return
		}
		idle.Stop()
		reply := s.webAnswer(typ, data, addr)
		if err := s.webWrite(ws, reply); err != nil {
			s.log.Debug("webrcon write failed", "addr", addr, "err", err)
			return
		}
		idle.Reset(s.cfg.IdleTimeout)
	}
}

// webAnswer runs one frame's command; an undecodable frame gets an Error
// reply with identifier 0 (the request's identifier is unknown).
func (s *Server) webAnswer(typ websocket.MessageType, data []byte, addr string) webrcon.Frame {
	var req webrcon.Request
	if typ != websocket.MessageText {
		return webrcon.Frame{Message: "bad request: send text frames of JSON", Type: webrcon.TypeError}
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return webrcon.Frame{Message: `bad request: want JSON {"Identifier": <int>, "Message": "<command>", "Name": "<client>"}`, Type: webrcon.TypeError}
	}
	r := s.exec(s.life, kindWeb, addr, req.Message)
	out := webrcon.Frame{Message: r.Text, Identifier: req.Identifier, Type: webrcon.TypeGeneric}
	if r.Failed {
		out.Type = webrcon.TypeError
	}
	return out
}

func (s *Server) webWrite(ws *websocket.Conn, reply webrcon.Frame) error {
	b, err := json.Marshal(reply)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(s.life, writeTimeout)
	defer cancel()
	return ws.Write(ctx, websocket.MessageText, b)
}
