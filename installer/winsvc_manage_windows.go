package installer

// Uninstall and status of the Windows service (see installer_windows.go).

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/eventlog"
	"golang.org/x/sys/windows/svc/mgr"
)

func uninstall(ctx context.Context, o Options) error {
	s, err := newHostSession(o, "uninstall")
	if err != nil {
		return err
	}
	if s.o.Root == "" {
		if err := s.removeService(ctx); err != nil {
			return err
		}
		if err := s.removeEventSource(); err != nil {
			return err
		}
	}
	s.keepFiles()
	return nil
}

// removeService stops the agent (its game servers keep running) and
// deletes the service.
func (s *winSession) removeService(ctx context.Context) error {
	m, err := mgr.Connect()
	if err != nil {
		if s.o.DryRun {
			s.printf("would stop and delete service %s (if registered)", WindowsServiceName)
			return nil
		}
		return fmt.Errorf("connect to the service manager: %w", err)
	}
	defer m.Disconnect()
	sv, err := m.OpenService(WindowsServiceName)
	if err != nil {
		s.printf("skip service %s (not registered)", WindowsServiceName)
		return nil
	}
	defer sv.Close()
	st, err := sv.Query()
	if err != nil {
		return fmt.Errorf("query service %s: %w", WindowsServiceName, err)
	}
	if st.State != svc.Stopped {
		err := s.act("stop service "+WindowsServiceName+" (game servers keep running)", func() error {
			if _, err := sv.Control(svc.Stop); err != nil {
				return err
			}
			return waitState(ctx, sv, svc.Stopped)
		})
		if err != nil {
			return err
		}
	}
	return s.act("delete service "+WindowsServiceName, sv.Delete)
}

func (s *winSession) removeEventSource() error {
	src := windowsEventSource
	if s.o.DryRun {
		s.printf("would remove Event Log source %s (if registered)", src)
		return nil
	}
	err := eventlog.Remove(src)
	if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) {
		s.printf("skip Event Log source %s (not registered)", src)
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove Event Log source %s: %w", src, err)
	}
	s.printf("remove Event Log source %s", src)
	return nil
}

func status(ctx context.Context, o Options) (string, error) {
	var b strings.Builder
	o.Out, o.DryRun = &b, false
	s, err := newWinSession(o, "status", hostLayout())
	if err != nil {
		return "", err
	}
	if s.o.Root == "" {
		if err := s.serviceStatus(); err != nil {
			return "", err
		}
	}
	s.checkConfig()
	return b.String(), nil
}

// serviceStatus prints the service's state, start type, command line and
// recovery actions, with only the rights to read them (no elevation).
func (s *winSession) serviceStatus() error {
	h, err := windows.OpenSCManager(nil, nil, windows.SC_MANAGER_CONNECT)
	if err != nil {
		return fmt.Errorf("connect to the service manager: %w", err)
	}
	m := &mgr.Mgr{Handle: h}
	defer m.Disconnect()
	name, _ := windows.UTF16PtrFromString(WindowsServiceName)
	sh, err := windows.OpenService(h, name, windows.SERVICE_QUERY_STATUS|windows.SERVICE_QUERY_CONFIG)
	if err != nil {
		s.printf("service %s: not installed (corrosion-agent install, in an elevated prompt)", WindowsServiceName)
		return nil
	}
	sv := &mgr.Service{Name: WindowsServiceName, Handle: sh}
	defer sv.Close()
	st, err := sv.Query()
	if err != nil {
		return fmt.Errorf("query service %s: %w", WindowsServiceName, err)
	}
	s.printf("service %s: %s", WindowsServiceName, stateName(st.State))
	if st.ProcessId != 0 {
		s.printf("pid: %d", st.ProcessId)
	}
	if c, err := readConfig(sv); err == nil {
		s.printf("start: %s", startTypeName(c))
		s.printf("command: %s", c.BinaryPathName)
	}
	if acts, err := sv.RecoveryActions(); err == nil {
		reset, _ := sv.ResetPeriod()
		s.printf("recovery: %s", recoveryText(acts, reset))
	}
	return nil
}

func startTypeName(c svcConfig) string {
	switch {
	case c.StartType == mgr.StartDisabled:
		return "disabled"
	case c.StartType == mgr.StartManual:
		return winStartManual.String()
	case c.StartType == mgr.StartAutomatic && c.Delayed:
		return winStartDelayed.String()
	case c.StartType == mgr.StartAutomatic:
		return "automatic"
	}
	return fmt.Sprintf("start type %d", c.StartType)
}

func recoveryText(acts []mgr.RecoveryAction, reset uint32) string {
	r := winRecovery{ResetAfter: secondsDuration(reset)}
	for _, a := range acts {
		if a.Type != mgr.ServiceRestart {
			return fmt.Sprintf("%d actions, not all restarts (set them again with corrosion-agent install)", len(acts))
		}
		r.Delays = append(r.Delays, a.Delay)
	}
	if len(r.Delays) == 0 {
		return "none (the service is not restarted when it fails)"
	}
	return r.String()
}
