package installer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// uninstall stops and disables the service and removes its unit; the
// config, the state and games directories, the user and the binary stay.
func uninstall(ctx context.Context, o Options) error {
	s, err := newSession(o, "uninstall")
	if err != nil {
		return err
	}
	_, err = os.Lstat(s.host(UnitPath))
	present := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("check %s: %w", UnitPath, err)
	}
	if err := s.disable(ctx, present); err != nil {
		return err
	}
	if !present {
		s.ok("%s not installed", UnitPath)
	} else if err := s.act("remove "+UnitPath, func() error { return os.Remove(s.host(UnitPath)) }); err != nil {
		return err
	}
	if present && s.o.Root == "" && systemdRunning() {
		if err := s.act("systemctl daemon-reload", func() error {
			_, err := s.systemctl(ctx, "daemon-reload")
			return err
		}); err != nil {
			return err
		}
	}
	s.printf("keep %s, %s, %s, user %s and %s (remove them by hand: docs/installer.md)",
		ConfigDir, StateDir, GamesDir, ServiceUser, BinaryPath)
	return nil
}

// disable stops (real system) and disables the service when it is
// installed. Stopping the agent leaves the game servers running
// (KillMode=process).
func (s *session) disable(ctx context.Context, present bool) error {
	if !present || (s.o.Root == "" && !systemdRunning()) {
		return nil
	}
	st, err := s.queryService(ctx)
	if err != nil {
		return err
	}
	if s.o.Root != "" {
		if st.enabled == "disabled" {
			s.ok("service %s disabled", ServiceName)
			return nil
		}
		return s.act(fmt.Sprintf("systemctl --root=%s disable %s", s.o.Root, ServiceName),
			func() error { _, err := s.systemctl(ctx, "disable", ServiceName); return err })
	}
	return s.act("systemctl disable --now "+ServiceName+" (stops the agent; game servers keep running)",
		func() error { _, err := s.systemctl(ctx, "disable", "--now", ServiceName); return err })
}
