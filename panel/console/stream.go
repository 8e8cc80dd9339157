package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/server"
)

// Stream pacing and sizes.
const (
	// FlushInterval batches live lines: a stream writes at most one event
	// per interval, so 10,000 lines/s cost ~13 events/s per browser.
	FlushInterval = 75 * time.Millisecond
	// BacklogLines is how many recent lines a stream asks the agent for
	// when it opens.
	BacklogLines = 500
	// keepAlive is how often an idle stream writes a comment, so that a
	// dead connection is noticed and proxies keep it open.
	keepAlive = 20 * time.Second
	// writeTimeout ends a stream whose browser takes this long to accept
	// one event.
	writeTimeout   = 30 * time.Second
	backlogTimeout = 5 * time.Second
	// seamSettle is how long a stream waits after the backlog before it
	// takes the live lines that arrived meanwhile: the agent may publish
	// a line just before it answers logs, and that message can reach the
	// hub's callback after the reply; waiting lets it land, so overlap
	// finds it and it is not shown twice.
	seamSettle = 150 * time.Millisecond
)

// SSE event names (console.js listens for them).
const (
	EventBacklog = "backlog" // {"lines": [...]}: replaces what the console shows
	EventLines   = "lines"   // {"lines": [...], "dropped": N}: live lines, after N dropped ones
	EventNotice  = "notice"  // {"text": "..."}: the panel's own remark (agent offline...)
)

// stream serves GET …/console/stream: the backlog, then live lines in
// batches, until the browser leaves.
func (f *Feature) stream(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, instance, err := server.PathIDs(r)
	if err != nil {
		return err
	}
	wt, err := f.hub.Watch(license, instance)
	if err != nil {
		return fmt.Errorf("open console stream: %w", err)
	}
	defer wt.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w)}
	if err := f.sendBacklog(r.Context(), sw, wt, license, instance); err != nil {
		return nil // the browser left; nothing to render
	}
	f.follow(r.Context(), sw, wt)
	return nil
}

// sendBacklog asks the agent for the recent lines and writes them, then
// the live lines that arrived meanwhile minus those the backlog already
// holds.
func (f *Feature) sendBacklog(ctx context.Context, sw *sseWriter, wt *Watcher, license, instance string) error {
	bctx, cancel := context.WithTimeout(ctx, backlogTimeout)
	defer cancel()
	var logs wire.LogsReply
	err := f.Agent.Instance(bctx, license, instance, wire.FuncLogs, map[string]int{"lines": BacklogLines}, &logs)
	if err != nil {
		_, msg := agentc.Describe(err)
		if werr := sw.event(EventBacklog, linesEvent{Lines: []line{}}); werr != nil {
			return werr
		}
		return sw.event(EventNotice, noticeEvent{Text: "no backlog: " + msg + "; live lines appear as the game prints them"})
	}
	if err := sw.event(EventBacklog, linesEvent{Lines: encodeLines(logs.Lines)}); err != nil {
		return err
	}
	t := time.NewTimer(seamSettle)
	select {
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	case <-t.C:
	}
	live, dropped := wt.Take()
	live = live[overlap(logs.Lines, live):]
	if len(live) == 0 && dropped == 0 {
		return nil
	}
	return sw.event(EventLines, linesEvent{Lines: encodeLines(live), Dropped: dropped})
}

// follow writes live lines, at most one event per FlushInterval, until the
// request ends or a write fails.
func (f *Feature) follow(ctx context.Context, sw *sseWriter, wt *Watcher) {
	ka := time.NewTicker(keepAlive)
	defer ka.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-ka.C:
			if sw.comment("keep-alive") != nil {
				return
			}
			continue
		case <-wt.Ready():
		}
		if wait := FlushInterval - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		if ctx.Err() != nil { // ended while lines were ready: none after the end
			return
		}
		lines, dropped := wt.Take()
		if len(lines) == 0 && dropped == 0 {
			continue
		}
		last = time.Now()
		if sw.event(EventLines, linesEvent{Lines: encodeLines(lines), Dropped: dropped}) != nil {
			return
		}
	}
}

// overlap is how many lines at the start of live the backlog already
// ends with: the subscription is active before the backlog is asked for,
// so lines printed in between arrive twice.
func overlap(backlog, live []wire.ConsoleLine) int {
	for k := min(len(backlog), len(live)); k > 0; k-- {
		if equalLines(backlog[len(backlog)-k:], live[:k]) {
			return k
		}
	}
	return 0
}

func equalLines(a, b []wire.ConsoleLine) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// line is one console line on the stream: [tint, text], the tint "e"
// (error), "w" (warning), "o" (anything else) or "a" (agent notice); see
// tintCode.
type line [2]string

type linesEvent struct {
	Lines   []line `json:"lines"`
	Dropped int64  `json:"dropped,omitempty"`
}

type noticeEvent struct {
	Text string `json:"text"`
}

func encodeLines(ls []wire.ConsoleLine) []line {
	out := make([]line, len(ls))
	for i, l := range ls {
		out[i] = line{tintCode(l), l.Text}
	}
	return out
}

// tintCode is the one place a console line's tint is decided: by the
// level the line states (LineLevel), else by its stream (stderr: error).
// A game logging INFO lines to stderr is not shown as failing.
func tintCode(l wire.ConsoleLine) string {
	if l.Stream == wire.StreamAgent {
		return "a"
	}
	switch LineLevel(l.Text) {
	case LevelError:
		return "e"
	case LevelWarn:
		return "w"
	case LevelInfo:
		return "o"
	}
	if l.Stream == wire.StreamStderr {
		return "e"
	}
	return "o"
}

// sseWriter writes server-sent events, each flushed at once and bounded
// by writeTimeout.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
}

func (s *sseWriter) event(name string, v any) error {
	data, err := json.Marshal(v) // JSON holds no raw newline: one data line
	if err != nil {
		return fmt.Errorf("encode %s event: %w", name, err)
	}
	s.buf = append(s.buf[:0], "event: "...)
	s.buf = append(s.buf, name...)
	s.buf = append(s.buf, "\ndata: "...)
	s.buf = append(s.buf, data...)
	s.buf = append(s.buf, "\n\n"...)
	return s.write()
}

func (s *sseWriter) comment(text string) error {
	s.buf = append(append(append(s.buf[:0], ": "...), text...), "\n\n"...)
	return s.write()
}

func (s *sseWriter) write() error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := s.w.Write(s.buf); err != nil {
		return err
	}
	return s.rc.Flush()
}
