package installer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// status reports the unit, systemd's view of the service, the config, the
// binary and the account, one line each (never an error for a missing
// piece: that is what it reports).
func status(ctx context.Context, o Options) (string, error) {
	o.DryRun, o.Out = true, io.Discard // a session that changes nothing and needs no root
	s, err := newSession(o, "service-status")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	line := func(k, format string, args ...any) { fmt.Fprintf(&b, "%-8s %s\n", k+":", fmt.Sprintf(format, args...)) }
	line("unit", "%s", s.unitStatus())
	switch st, err := s.queryService(ctx); {
	case s.o.Root == "" && !systemdRunning():
		line("service", "unknown: systemd is not running on this host")
	case err != nil:
		line("service", "unknown: %v", err)
	case s.o.Root != "":
		line("service", "%s (not running: --root)", st.enabled)
	case st.stale:
		line("service", "%s, %s, pid %s; systemd has not loaded the unit on disk (install reloads it)", st.enabled, st.active, st.pid)
	default:
		line("service", "%s, %s, pid %s", st.enabled, st.active, st.pid)
	}
	line("config", "%s", s.configStatus())
	line("binary", "%s", s.binaryStatus())
	switch a, err := s.lookupAccount(); {
	case err != nil:
		line("user", "unknown: %v", err)
	case a.userFound:
		line("user", "%s (uid %d, gid %d)", ServiceUser, a.uid, a.gid)
	default:
		line("user", "%s missing", ServiceUser)
	}
	return b.String(), nil
}

func (s *session) unitStatus() string {
	cur, err := os.ReadFile(s.host(UnitPath))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return UnitPath + " not installed"
	case err != nil:
		return fmt.Sprintf("%s: %v", UnitPath, err)
	case string(cur) != SystemdUnit(UnitOptions{Binary: BinaryPath, ConfigPath: s.o.ConfigPath}):
		return UnitPath + " installed, differs from this binary's unit (install rewrites it)"
	}
	return UnitPath + " installed"
}

func (s *session) configStatus() string {
	cfg := s.o.ConfigPath
	if _, err := os.Stat(s.host(cfg)); err != nil {
		return fmt.Sprintf("%s: %v", cfg, unwrapPath(err))
	}
	problems := s.configProblems()
	if problems == nil {
		return cfg + ": valid"
	}
	// agent.env is root's (0600): without it a ${VAR} reads as unset, so
	// a user other than root cannot tell a valid config from a broken one.
	if _, err := os.ReadFile(s.host(EnvFilePath)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("%s: cannot check it: %s is not readable here (%v); run service-status as root",
			cfg, EnvFilePath, unwrapPath(err))
	}
	return cfg + ": not valid:\n         " + strings.Join(problems, "\n         ")
}

func (s *session) binaryStatus() string {
	cur, err := os.ReadFile(s.host(BinaryPath))
	if err != nil {
		return fmt.Sprintf("%s: %v", BinaryPath, unwrapPath(err))
	}
	src, err := sourceBinary(s.o)
	if err != nil {
		return BinaryPath + " installed"
	}
	if mine, err := os.ReadFile(src); err == nil && !bytes.Equal(mine, cur) {
		return BinaryPath + " installed, differs from " + src + " (install replaces it)"
	}
	return BinaryPath + " installed"
}

// unwrapPath drops the path a *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
