package paneltest

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// TestLogger is a logger writing to t.Log until the test's cleanup ends
// (parts that log late are silenced, not a panic).
func TestLogger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.close)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	t testing.TB

	mu   sync.Mutex
	done bool // guarded by mu
}

func (w *testWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(b), "\n"))
	}
	return len(b), nil
}

func (w *testWriter) close() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}
