package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// Options is what the handlers serve. Every field but Logger is required.
type Options struct {
	Map     *terrain.Map        // rendered once, in New
	Status  StatusSource        // /status
	Probe   Probe               // /ready
	Metrics prometheus.Gatherer // /metrics: the world's registry
	Logger  *slog.Logger        // nil: discard
}

// ErrOptions marks missing Options; the message names the field.
var ErrOptions = errors.New("httpapi: missing option")

// Server is the world's HTTP handler. Its routes are fixed in New; Handle
// adds more before it serves.
type Server struct {
	mux *http.ServeMux // immutable after New, except through Handle before serving
	log *slog.Logger   // immutable after New
}

var _ http.Handler = (*Server)(nil)

// New renders the map and builds the routes. A GET route also answers
// HEAD; any other method gets 405 with an Allow header.
func New(o Options) (*Server, error) {
	switch {
	case o.Map == nil:
		return nil, fmt.Errorf("%w: Map", ErrOptions)
	case o.Status == nil:
		return nil, fmt.Errorf("%w: Status", ErrOptions)
	case o.Probe == nil:
		return nil, fmt.Errorf("%w: Probe", ErrOptions)
	case o.Metrics == nil:
		return nil, fmt.Errorf("%w: Metrics", ErrOptions)
	}
	bin, png, err := renderMap(o.Map)
	if err != nil {
		return nil, err
	}
	s := &Server{mux: http.NewServeMux(), log: o.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.mux.HandleFunc("GET /health", serveHealth)
	s.mux.HandleFunc("GET /ready", func(w http.ResponseWriter, _ *http.Request) { s.serveReady(w, o.Probe) })
	s.mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) { s.serveStatus(w, o.Status) })
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(o.Metrics, promhttp.HandlerOpts{}))
	s.mux.Handle("GET /map.bin", bin)
	s.mux.Handle("GET /map.png", png)
	return s, nil
}

// Handle adds a route (a net/http pattern such as "GET /client"). Call it
// before the server serves; a pattern that conflicts with another panics,
// as http.ServeMux does.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// ServeHTTP routes r.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// serveHealth: the process serves HTTP, so it is alive.
func serveHealth(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
}

func (s *Server) serveReady(w http.ResponseWriter, p Probe) {
	r := ready(p)
	code := http.StatusOK
	if !r.Ready {
		code = http.StatusServiceUnavailable
	}
	s.writeJSON(w, code, r)
}

func (s *Server) serveStatus(w http.ResponseWriter, src StatusSource) {
	s.writeJSON(w, http.StatusOK, src.Status())
}

// writeJSON is the one JSON-rendering path. A value that cannot be encoded
// (a NaN duration) is a 500 with a JSON error, logged here.
func (s *Server) writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encode response", "err", err)
		code, body = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
