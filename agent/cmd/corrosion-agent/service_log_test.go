package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// events records what the handler writes, as the Event Log would get it.
type events struct {
	mu  sync.Mutex
	got []string // "<type> <id> <text>"
}

func (e *events) add(kind string, id uint32, msg string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, fmt.Sprintf("%s %d %s", kind, id, msg))
	return nil
}

func (e *events) Info(id uint32, msg string) error    { return e.add("info", id, msg) }
func (e *events) Warning(id uint32, msg string) error { return e.add("warning", id, msg) }
func (e *events) Error(id uint32, msg string) error   { return e.add("error", id, msg) }

func TestEventHandler_LevelsAndText(t *testing.T) {
	ev := &events{}
	log := slog.New(newEventHandler(ev, slog.LevelInfo))
	log.Debug("hidden")
	log.Info("corrosion-agent starting", "instances", 2)
	log.With("component", "supervise").WithGroup("g").Warn("slow", "ms", 120)
	log.Error("run", "err", "nats: no servers")
	log.Log(context.Background(), slog.LevelError+4, "worse")
	want := []string{
		`info 1 msg="corrosion-agent starting" instances=2`,
		`warning 2 msg=slow component=supervise g.ms=120`,
		`error 3 msg=run err="nats: no servers"`,
		`error 3 msg=worse`,
	}
	if strings.Join(ev.got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(ev.got, "\n"), strings.Join(want, "\n"))
	}
}

func TestEventHandler_DebugLevelAndLongText(t *testing.T) {
	ev := &events{}
	log := slog.New(newEventHandler(ev, slog.LevelDebug))
	log.Debug("detail")
	log.Info(strings.Repeat("x", maxEventText+100))
	if len(ev.got) != 2 || ev.got[0] != "info 1 msg=detail" {
		t.Fatalf("events %q", ev.got)
	}
	if n := len(ev.got[1]); n > maxEventText+20 || !strings.HasSuffix(ev.got[1], "…(cut)") {
		t.Fatalf("long event: %d bytes, ends %q", n, ev.got[1][n-10:])
	}
}

func TestEventHandler_Concurrent(t *testing.T) {
	ev := &events{}
	log := slog.New(newEventHandler(ev, slog.LevelInfo))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := log.With("worker", i)
			for j := range 50 {
				l.Info("tick", "j", j)
			}
		}()
	}
	wg.Wait()
	if len(ev.got) != 400 {
		t.Fatalf("%d events, want 400", len(ev.got))
	}
	for _, e := range ev.got {
		if !strings.HasPrefix(e, "info 1 msg=tick worker=") || strings.Count(e, "msg=") != 1 {
			t.Fatalf("mixed event %q", e)
		}
	}
}

func TestEventType(t *testing.T) {
	for l, want := range map[slog.Level]eventKind{slog.LevelDebug: eventInfo, slog.LevelInfo: eventInfo,
		slog.LevelWarn: eventWarning, slog.LevelWarn + 1: eventWarning, slog.LevelError: eventError, 12: eventError} {
		if got := eventType(l); got != want {
			t.Errorf("level %v: %v, want %v", l, got, want)
		}
	}
}
