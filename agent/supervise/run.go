package supervise

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// run is one process of the instance, spawned by us or adopted.
type run struct {
	id      ident     // immutable
	cmd     *exec.Cmd // immutable; nil when adopted (no exit code then)
	started time.Time // immutable
	tails   []*tailer // immutable
	stdinW  *os.File  // immutable; the agent's end of stdin (may be nil)
	stopped chan struct{}
	ready   *regexp.Regexp // immutable; the ready pattern it was started with, nil: none or adopted

	readyPending atomic.Bool // waiting for ready_pattern

	// guarded by Supervisor.mu:
	stopRequested bool   // the agent asked it to stop: its exit is not a crash
	restartAfter  bool   // start again once it exits
	killTimer     Timer  // force kill after the stop timeout
	readyTimer    Timer  // readiness budget while ready_pattern waits
	readyFailed   string // readiness timed out with action "fail": why it is killed

	followOnce sync.Once
}

func (s *Supervisor) logPath(stream string) string {
	return filepath.Join(s.dir, stream+".log")
}

// startFollowing starts the tailers of r at the given offsets.
func (s *Supervisor) startFollowing(r *run, offsets map[string]int64) {
	for _, stream := range []string{wire.StreamStdout, wire.StreamStderr} {
		t := newTailer(tailerConfig{path: s.logPath(stream), stream: stream, offset: offsets[stream],
			onLines: func(lines [][]byte) { s.checkReady(r, lines) }, needAll: r.readyPending.Load},
			s.con, s.log)
		r.tails = append(r.tails, t)
		go t.run()
	}
}

// stopFollowing stops the tailers after draining what the process wrote.
func (r *run) stopFollowing() {
	r.followOnce.Do(func() {
		for _, t := range r.tails {
			t.Stop()
		}
	})
}

// offsets reports how far each stream has been read.
func (r *run) offsets() map[string]int64 {
	m := make(map[string]int64, len(r.tails))
	for _, t := range r.tails {
		m[t.stream] = t.Offset()
	}
	return m
}
