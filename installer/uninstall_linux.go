package installer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
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
	if !present {
		if present, err = s.restoreLingering(ctx); err != nil {
			return err
		}
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

// wantsLink is the link `systemctl enable` makes ([Install] WantedBy=).
const wantsLink = "/etc/systemd/system/multi-user.target.wants/" + ServiceName + ".service"

// restoreLingering puts the unit back when its file is gone (removed by
// hand) but systemd still runs the service or has it enabled, and reports
// whether it did. Stopped without its unit, the service has systemd's
// default KillMode=control-group, which kills every game server; with the
// unit back, uninstall goes on as usual and stops only the agent.
func (s *session) restoreLingering(ctx context.Context) (bool, error) {
	if s.o.Root != "" || !systemdRunning() {
		return false, nil
	}
	st, err := s.queryService(ctx)
	if err != nil {
		return false, err
	}
	_, linkErr := os.Lstat(wantsLink)
	stopped := strings.HasPrefix(st.active, "inactive ") || strings.HasPrefix(st.active, "failed ")
	if linkErr != nil && stopped {
		return false, nil
	}
	unit := SystemdUnit(UnitOptions{Binary: BinaryPath, ConfigPath: s.o.ConfigPath})
	if err := s.act("restore "+UnitPath+" (removed by hand, but systemd still runs or enables "+ServiceName+
		"; stopped without it, the game servers would be killed too)",
		func() error { return s.writeAtomic(UnitPath, []byte(unit), 0o644, rootOwned) }); err != nil {
		return false, err
	}
	return true, s.act("systemctl daemon-reload", func() error {
		_, err := s.systemctl(ctx, "daemon-reload")
		return err
	})
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
