package files

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

// recordHandler keeps every log record, rendered as "LEVEL msg k=v ...".
type recordHandler struct {
	mu    sync.Mutex
	lines *[]string // guarded by mu
	attrs []slog.Attr
}

func newRecordHandler() *recordHandler { return &recordHandler{lines: new([]string)} }

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	for _, a := range h.attrs {
		fmt.Fprintf(&b, " %s", a)
	}
	r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s", a); return true })
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.lines = append(*h.lines, b.String())
	return nil
}

func (h *recordHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &recordHandler{lines: h.lines, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h *recordHandler) WithGroup(string) slog.Handler { return h }

// failures returns the "request failed" records.
func (h *recordHandler) failures() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, l := range *h.lines {
		if strings.Contains(l, "request failed") {
			out = append(out, l)
		}
	}
	return out
}

func TestHandle_LogsFailureOnceAtItsLevel(t *testing.T) {
	const secret = "TOP-SECRET-CONTENT"
	tests := []struct {
		name, fn string
		args     map[string]any
		code     string
		level    slog.Level
	}{
		{"escape", "fm_save", map[string]any{"path": "../x", "content": secret}, CodeOutsideRoot, slog.LevelInfo},
		{"denied", "fm_save", map[string]any{"path": "a.key", "content": secret}, CodeDenied, slog.LevelInfo},
		{"bad args", "fm_save", map[string]any{"path": 7, "content": secret}, wire.CodeBadArgs, slog.LevelDebug},
		{"missing", "fm_read", map[string]any{"path": "nope"}, CodeNotFound, slog.LevelDebug},
		{"unknown func", "fm_nope", nil, wire.CodeUnknownFunc, slog.LevelDebug},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "*.key")
			h := newRecordHandler()
			m, err := New(e.root, []string{"*.key"}, Limits{}, slog.New(h))
			must(t, err)
			_, werr := callManager(t, m, tt.fn, tt.args)
			if werr == nil || werr.Code != tt.code {
				t.Fatalf("error %v, want code %s", werr, tt.code)
			}
			got := h.failures()
			if len(got) != 1 {
				t.Fatalf("%d failure records, want 1: %q", len(got), got)
			}
			if !strings.HasPrefix(got[0], tt.level.String()+" ") || !strings.Contains(got[0], "code="+tt.code) ||
				!strings.Contains(got[0], "func="+tt.fn) {
				t.Errorf("record %q, want level %s, code %s, func %s", got[0], tt.level, tt.code, tt.fn)
			}
			if strings.Contains(got[0], secret) {
				t.Errorf("record %q holds the file content", got[0])
			}
		})
	}
}

func TestLogLevel_InternalIsError(t *testing.T) {
	if got := logLevel(wire.CodeInternal); got != slog.LevelError {
		t.Errorf("internal: %s", got)
	}
	if got := logLevel(CodePermission); got != slog.LevelWarn {
		t.Errorf("permission_denied: %s", got)
	}
}
