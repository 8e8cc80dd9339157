package supervise

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/corrosion/corrosion/internal/atomicfile"
)

// persisted is what the agent keeps in the instance's state directory so a
// later agent can adopt the process (state.json).
type persisted struct {
	Version    int              `json:"version"`
	Process    *ident           `json:"process,omitempty"` // nil: no process running
	Exec       string           `json:"exec"`
	StartedAt  time.Time        `json:"started_at,omitempty"`
	Offsets    map[string]int64 `json:"log_offsets,omitempty"`
	ManualStop bool             `json:"manual_stop"`
	CrashCount int              `json:"crash_count"`
	LastExit   *int             `json:"last_exit_code,omitempty"`
}

const stateFile = "state.json"

// saveLocked writes state.json (atomically: temp file + rename).
func (s *Supervisor) saveLocked() {
	p := persisted{Version: 1, Exec: s.conf().Exec, ManualStop: s.manualStop,
		CrashCount: s.crashes.total, LastExit: s.lastExit}
	if r := s.run; r != nil {
		id := r.id
		p.Process, p.StartedAt, p.Offsets = &id, r.started, r.offsets()
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		s.log.Warn("save state", "err", err)
		return
	}
	if bytes.Equal(b, s.saved) {
		return // unchanged: checkpoints of an idle instance write nothing
	}
	if err := atomicfile.Write(filepath.Join(s.dir, stateFile), b, nil); err != nil {
		s.log.Warn("save state", "err", err)
		return
	}
	s.saved = b
}

// Checkpoint saves the current log offsets, so an adopting agent resumes
// the console where this one stopped reading.
func (s *Supervisor) Checkpoint() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saveLocked()
}

func loadState(dir string) (persisted, error) {
	var p persisted
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("parse %s: %w", stateFile, err)
	}
	return p, nil
}

func writeJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, nil)
}
