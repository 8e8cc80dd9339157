package installer

// The files of a Windows install (the layout under %ProgramData%\Corrosion
// and the config written from the template), platform-independent: with
// Options.Root set, installer_windows.go does only this part, and the
// tests do it on Linux.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/corrosion/corrosion/internal/atomicfile"
)

// dirAccess says who may use a directory the install creates.
type dirAccess int

const (
	inheritedAccess dirAccess = iota // as its parent says
	adminsOnly                       // Administrators and SYSTEM only (the config may hold secrets)
)

// ensureDir creates the directory p when it is missing; an existing one
// is left as it is.
func (s *winSession) ensureDir(p string, access dirAccess) error {
	h := s.host(p)
	fi, err := os.Stat(h)
	switch {
	case err == nil && fi.IsDir():
		s.printf("ok   %s", p)
		return nil
	case err == nil:
		return fmt.Errorf("check %s: it exists and is not a directory", p)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("check %s: %w", p, err)
	}
	what := "mkdir " + p
	if access == adminsOnly {
		what += " (Administrators and SYSTEM only)"
	}
	return s.act(what, func() error {
		if err := os.MkdirAll(h, 0o755); err != nil {
			return err
		}
		if access == adminsOnly && s.secure != nil {
			return s.secure(h)
		}
		return nil
	})
}

// writeConfig writes the config from the template when there is none; an
// existing config is never overwritten.
func (s *winSession) writeConfig() error {
	p := s.o.ConfigPath
	h := s.host(p)
	if _, err := os.Lstat(h); err == nil {
		s.printf("skip %s (exists; never overwritten)", p)
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("check %s: %w", p, err)
	}
	data := []byte(windowsConfig(ConfigTemplate, s.layout))
	return s.act("write "+p, func() error {
		if err := os.MkdirAll(filepath.Dir(h), 0o755); err != nil {
			return err
		}
		return atomicfile.Write(h, data, nil)
	})
}

// filesResult is what installFiles did and found.
type filesResult struct {
	Valid         bool // the config validates: the service may be started
	BinaryChanged bool // the binary was (or, in a dry run, would be) replaced
}

// installFiles installs the binary, creates the layout and the config, and
// checks the config.
func (s *winSession) installFiles() (filesResult, error) {
	var res filesResult
	l := s.layout
	changed, err := s.installBinary()
	if err != nil {
		return res, err
	}
	res.BinaryChanged = changed
	for _, d := range []struct {
		path   string
		access dirAccess
	}{{l.Base, adminsOnly}, {l.Data, inheritedAccess}, {l.Servers, inheritedAccess}} {
		if err := s.ensureDir(d.path, d.access); err != nil {
			return res, err
		}
	}
	if err := s.writeConfig(); err != nil {
		return res, err
	}
	res.Valid = s.checkConfig()
	return res, nil
}

// installBinary copies the agent binary (Options.Binary, or the running
// executable) to the layout's place when the bytes differ. A running
// binary cannot be overwritten on Windows but can be renamed: the old one
// becomes corrosion-agent.exe.old (removed at the next upgrade), and the
// new one takes its name, so the service runs it from its next start.
func (s *winSession) installBinary() (bool, error) {
	src, err := sourceBinary(s.o)
	if err != nil {
		return false, err
	}
	dst := s.layout.Binary
	h := s.host(dst)
	return s.copyAgentBinary(src, h, dst, dst, func(data []byte) error { return replaceFile(h, data) })
}

// replaceFile puts data at path: written next to it, the current file
// moved aside to path.old, the new one renamed into place.
func replaceFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		return err
	}
	old := path + ".old"
	_ = os.Remove(old) // still running (two upgrades without a restart): it stays
	if err := os.Rename(path, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// checkConfig validates the config as the agent will load it (with the
// variables of agent.env over the process environment, as the service
// sees them) and says what to fix.
func (s *winSession) checkConfig() bool {
	p := s.o.ConfigPath
	data, err := os.ReadFile(s.host(p))
	if err != nil {
		if s.o.DryRun && errors.Is(err, fs.ErrNotExist) {
			s.printf("config %s: not written in a dry run; the service would not be started", p)
		} else {
			s.printf("config %s cannot be read: %v", p, err)
		}
		return false
	}
	env, err := ReadEnvFile(s.host(s.layout.EnvFile))
	if err != nil {
		s.printf("%s cannot be read: %v", s.layout.EnvFile, err)
		return false
	}
	if err := s.o.validateConfig(data, EnvLookup(env)); err != nil {
		s.printf("config %s does not validate (the service starts only once it does):\n%v", p, err)
		s.printf("edit it, check it with `corrosion-agent validate --config %s`, then run install again", p)
		return false
	}
	s.printf("ok   config %s validates", p)
	return true
}

// keepFiles prints what an uninstall leaves in place.
func (s *winSession) keepFiles() {
	s.printf("keep %s (config), %s, %s (state and game servers) and %s", s.o.ConfigPath, s.layout.Data,
		s.layout.Servers, s.layout.Binary)
}
