package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/internal/atomicfile"
)

// A created instance is stored in the state directory, one file per
// instance ({state_dir}/provisioned/{id}.json, mode 0600: values may hold
// secrets), written atomically. At start the agent loads each one next to
// agent.toml's instances and supervises it like them (adoption included).

// provRecordVersion is the version of the stored record's format.
const provRecordVersion = 1

// provRecord is one created instance as stored.
type provRecord struct {
	Version  int    `json:"version"`
	ID       string `json:"id"`
	Template string `json:"template"`
	// TemplateTOML is the template itself when the panel sent it (an
	// imported egg); empty for a built-in.
	TemplateTOML string            `json:"template_toml,omitempty"`
	Values       map[string]string `json:"values"`
	Label        string            `json:"label,omitempty"`
	Created      time.Time         `json:"created"`
}

// provisioned is a created instance's template and rendered spec.
type provisioned struct {
	rec  provRecord        // as stored
	tmpl template.Template // parsed from rec
	spec template.Spec     // tmpl rendered with rec.Values
}

// provDir is the directory of the stored records.
func (a *Agent) provDir() string { return filepath.Join(a.cfg.Agent.StateDir, "provisioned") }

func (a *Agent) provPath(id string) string { return filepath.Join(a.provDir(), id+".json") }

// saveRecord writes rec atomically, mode 0600.
func (a *Agent) saveRecord(rec provRecord) error {
	if err := os.MkdirAll(a.provDir(), 0o700); err != nil {
		return fmt.Errorf("store instance %s: %w", rec.ID, err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("store instance %s: %w", rec.ID, err)
	}
	if err := atomicfile.Write(a.provPath(rec.ID), append(data, '\n'), nil); err != nil {
		return fmt.Errorf("store instance %s: %w", rec.ID, err)
	}
	return nil
}

// removeRecord deletes id's record; a missing one is not an error.
func (a *Agent) removeRecord(id string) error {
	if err := os.Remove(a.provPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stored instance %s: %w", id, err)
	}
	return nil
}

// readRecords reads every stored record, in id order. A record that
// cannot be read is logged and left on disk untouched (nothing is lost);
// the others are loaded.
func (a *Agent) readRecords() []provRecord {
	entries, err := os.ReadDir(a.provDir())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			a.log.Error("read created instances", "err", err)
		}
		return nil
	}
	var out []provRecord
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(a.provDir(), name))
		var rec provRecord
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		if err == nil && rec.ID+".json" != name {
			err = fmt.Errorf("the record names instance %q", rec.ID)
		}
		if err != nil {
			a.log.Error("created instance not loaded: its record is unreadable", "file", name, "err", err)
			continue
		}
		out = append(out, rec)
	}
	slices.SortFunc(out, func(x, y provRecord) int { return strings.Compare(x.ID, y.ID) })
	return out
}

// loadProvisioned builds the created instances stored in the state
// directory (New calls it after agent.toml's). One that no longer renders
// (a template changed, a program no longer allowed) or whose id agent.toml
// now defines is logged and not loaded; its record stays.
func (a *Agent) loadProvisioned() error {
	for _, rec := range a.readRecords() {
		if a.byID[rec.ID] != nil {
			a.log.Error("created instance not loaded: agent.toml defines the same id", "instance", rec.ID)
			continue
		}
		p, ic, err := a.prepareCreated(rec)
		if err != nil {
			a.log.Error("created instance not loaded", "instance", rec.ID, "err", err)
			continue
		}
		inst, err := a.newInstance(ic)
		if err != nil {
			return err
		}
		inst.prov = p
		a.instances = append(a.instances, inst)
		a.byID[rec.ID] = inst
	}
	return nil
}
