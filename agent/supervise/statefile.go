package supervise

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
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
	p := persisted{Version: 1, Exec: s.cfg.Exec, ManualStop: s.manualStop,
		CrashCount: s.crashes.total, LastExit: s.lastExit}
	if r := s.run; r != nil {
		id := r.id
		p.Process, p.StartedAt, p.Offsets = &id, r.started, r.offsets()
	}
	if err := writeJSONAtomic(filepath.Join(s.dir, stateFile), p); err != nil {
		s.log.Warn("save state", "err", err)
	}
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
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
