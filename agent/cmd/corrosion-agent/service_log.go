package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
)

// eventWriter is what the service's log handler needs of the Windows
// Event Log (*eventlog.Log of golang.org/x/sys/windows/svc/eventlog).
type eventWriter interface {
	Info(eid uint32, msg string) error
	Warning(eid uint32, msg string) error
	Error(eid uint32, msg string) error
}

// Event ids of the agent's events (the EventCreate message file the
// installer registers shows ids 1–1000 with their text as written).
const (
	eventIDInfo    uint32 = 1
	eventIDWarning uint32 = 2
	eventIDError   uint32 = 3
)

// maxEventText bounds one event's text (ReportEvent takes up to 31,839
// characters per string).
const maxEventText = 31000

// eventHandler is a slog.Handler that writes each record as one Event Log
// entry: the record in slog's text form without time and level (the
// entry has its own), at the entry type of its level (eventType).
type eventHandler struct {
	w    eventWriter   // immutable
	text slog.Handler  // immutable; writes into *buf
	mu   *sync.Mutex   // shared with the handlers derived by WithAttrs/WithGroup
	buf  *bytes.Buffer // guarded by *mu
}

var _ slog.Handler = (*eventHandler)(nil)

func newEventHandler(w eventWriter, level slog.Leveler) *eventHandler {
	buf := new(bytes.Buffer)
	text := slog.NewTextHandler(buf, &slog.HandlerOptions{Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
				return slog.Attr{}
			}
			return a
		}})
	return &eventHandler{w: w, text: text, mu: new(sync.Mutex), buf: buf}
}

func (h *eventHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.text.Enabled(ctx, l) }

func (h *eventHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	h.buf.Reset()
	err := h.text.Handle(ctx, r)
	msg := strings.TrimSuffix(h.buf.String(), "\n")
	h.mu.Unlock()
	if err != nil {
		return err
	}
	if len(msg) > maxEventText {
		msg = msg[:maxEventText] + " …(cut)"
	}
	switch eventType(r.Level) {
	case eventError:
		return h.w.Error(eventIDError, msg)
	case eventWarning:
		return h.w.Warning(eventIDWarning, msg)
	}
	return h.w.Info(eventIDInfo, msg)
}

func (h *eventHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &eventHandler{w: h.w, text: h.text.WithAttrs(as), mu: h.mu, buf: h.buf}
}

func (h *eventHandler) WithGroup(name string) slog.Handler {
	return &eventHandler{w: h.w, text: h.text.WithGroup(name), mu: h.mu, buf: h.buf}
}

// eventKind is an Event Log entry type.
type eventKind int

const (
	eventInfo eventKind = iota
	eventWarning
	eventError
)

// eventType maps a slog level to an entry type: error and above are
// errors, warn and above warnings, the rest (info, debug) information.
func eventType(l slog.Level) eventKind {
	switch {
	case l >= slog.LevelError:
		return eventError
	case l >= slog.LevelWarn:
		return eventWarning
	}
	return eventInfo
}
