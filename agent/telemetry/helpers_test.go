package telemetry

import (
	"log/slog"
	"strings"
	"testing"
)

// testLogger sends the collector's logs to t.Log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// within reports whether got is within tol of want.
func within(got, want, tol uint64) bool {
	if got > want {
		return got-want <= tol
	}
	return want-got <= tol
}
