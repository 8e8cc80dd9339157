package installer

// The Windows service, registered with golang.org/x/sys/windows/svc/mgr.
// Not kardianos/service: we already depend on x/sys (the agent's process
// handling uses it), we need recovery actions (restart after 5, 10, 30 s)
// and delayed automatic start, which mgr exposes directly
// (SetRecoveryActions, Config.DelayedAutoStart) and kardianos/service does
// not, and it is no extra dependency.
//
// Not run-tested here: compile-checked (GOOS=windows go build and vet);
// the spec, the command line and the files are tested on Linux
// (winsvc_spec_test.go, winsvc_files_test.go). docs/windows.md says what
// is verified on Windows and what is not. With Options.Root set only the
// files are written (under Root); the service manager is not touched.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/eventlog"
	"golang.org/x/sys/windows/svc/mgr"
)

// serviceWait bounds a wait for the service to start or stop.
const serviceWait = 60 * time.Second

// adminsOnlySDDL: full control for SYSTEM and Administrators, inherited by
// everything below, and nothing inherited from %ProgramData% (where every
// user may read).
const adminsOnlySDDL = "D:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"

func defaultConfigPath() string { return hostLayout().Config }

func hostLayout() winLayout {
	return windowsLayout(os.Getenv("ProgramData"), os.Getenv("ProgramFiles"))
}

// errNotElevated: a change to the real system from an ordinary prompt.
var errNotElevated = errors.New("needs an elevated prompt (Run as administrator)")

func newHostSession(o Options, verb string) (*winSession, error) {
	s, err := newWinSession(o, verb, hostLayout())
	if err != nil {
		return nil, err
	}
	if s.o.Root == "" {
		s.secure = protectDir
		if !s.o.DryRun && !windows.GetCurrentProcessToken().IsElevated() {
			return nil, fmt.Errorf("%s %w", verb, errNotElevated)
		}
	}
	return s, nil
}

func install(ctx context.Context, o Options) error {
	s, err := newHostSession(o, "install")
	if err != nil {
		return err
	}
	res, err := s.installFiles()
	if err != nil || s.o.Root != "" {
		return err
	}
	start := winStartManual
	if res.Valid {
		start = winStartDelayed
	}
	return s.registerService(ctx, windowsServiceSpec(s.layout.Binary, s.o.ConfigPath, start), res.BinaryChanged)
}

// WindowsEnvFile is the agent.env the Windows service reads at each start.
func WindowsEnvFile() string { return hostLayout().EnvFile }

// protectDir gives path the admins-only ACL.
func protectDir(path string) error {
	sd, err := windows.SecurityDescriptorFromString(adminsOnlySDDL)
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
}

// registerService creates or updates the service, its recovery actions
// and its Event Log source, and starts it when the config validates
// (restarts it when it runs and its binary or configuration changed).
func (s *winSession) registerService(ctx context.Context, spec winServiceSpec, binaryChanged bool) error {
	m, err := mgr.Connect()
	if err != nil {
		if s.o.DryRun { // not elevated: the whole plan, as for a first install
			s.printf("would register service %s: %s (%s)", spec.Name, spec.CommandLine(), spec.Start)
			s.planRest(spec)
			return nil
		}
		return fmt.Errorf("connect to the service manager: %w", err)
	}
	defer m.Disconnect()
	sv, updated, err := s.ensureService(m, spec)
	if err != nil {
		return err
	}
	if sv == nil { // a dry run of a first install
		s.planRest(spec)
		return nil
	}
	defer sv.Close()
	if err := s.ensureRecovery(sv, spec.Recovery); err != nil {
		return err
	}
	if err := s.ensurePreshutdown(sv, spec.Preshutdown); err != nil {
		return err
	}
	if err := s.ensureEventSource(spec.EventSource); err != nil {
		return err
	}
	if spec.Start == winStartManual {
		s.printf("skip starting %s (the config does not validate)", spec.Name)
		return nil
	}
	return s.startService(ctx, sv, binaryChanged || updated)
}

// planRest prints the steps after the registration of a service that
// does not exist yet, in a dry run.
func (s *winSession) planRest(spec winServiceSpec) {
	s.printf("would set recovery: %s", spec.Recovery)
	s.printf("would set preshutdown timeout %v (games stop gracefully when the host shuts down)", spec.Preshutdown)
	s.printf("would register Event Log source %s", spec.EventSource)
	if spec.Start == winStartManual {
		s.printf("skip starting %s (the config does not validate)", spec.Name)
		return
	}
	s.printf("would start service %s", spec.Name)
}

// ensureService creates the service or brings its configuration in line
// with spec, and reports whether it changed an existing one. It returns a
// nil service (and no error) in a dry run of a creation.
func (s *winSession) ensureService(m *mgr.Mgr, spec winServiceSpec) (*mgr.Service, bool, error) {
	want := wantConfig(spec)
	sv, err := m.OpenService(spec.Name)
	if err != nil {
		var created *mgr.Service
		err := s.act(fmt.Sprintf("register service %s: %s (%s)", spec.Name, spec.CommandLine(), spec.Start),
			func() error {
				var err error
				created, err = m.CreateService(spec.Name, spec.Binary, mgr.Config{ServiceType: want.ServiceType,
					StartType: want.StartType, ErrorControl: want.ErrorControl, ServiceStartName: want.ServiceStartName,
					DisplayName: want.DisplayName, Description: want.Description}, spec.Args...)
				return err
			})
		if err == nil && created != nil {
			err = s.ensureDelayed(created, svcConfig{}, want)
		}
		return created, false, err
	}
	cur, err := readConfig(sv)
	if err != nil {
		sv.Close()
		return nil, false, fmt.Errorf("read the configuration of service %s: %w", spec.Name, err)
	}
	changed := false
	if cur.same(want) {
		s.printf("ok   service %s: %s (%s)", spec.Name, want.BinaryPathName, spec.Start)
	} else {
		changed = true
		err = s.act(fmt.Sprintf("update service %s: %s (%s; was %s)", spec.Name, want.BinaryPathName, spec.Start,
			cur.BinaryPathName), func() error { return writeConfig(sv, want) })
	}
	if err == nil {
		err = s.ensureDelayed(sv, cur, want)
	}
	if err != nil {
		sv.Close()
		return nil, false, err
	}
	return sv, changed, nil
}

// ensureDelayed makes the automatic start delayed (or not, for a manual
// service), where the service manager knows the setting.
func (s *winSession) ensureDelayed(sv *mgr.Service, cur, want svcConfig) error {
	if cur.DelayedKnown && cur.Delayed == want.Delayed || !cur.DelayedKnown && !want.Delayed {
		return nil
	}
	err := s.act(fmt.Sprintf("set delayed start of %s to %v", sv.Name, want.Delayed),
		func() error { return setDelayed(sv, want.Delayed) })
	if unsupported(err) {
		s.printf("warn delayed start is not supported by this system (%v): the start is automatic, not delayed",
			unwrapAll(err))
		return nil
	}
	return err
}

// ensureRecovery sets the restart-on-failure actions, for crashes and for
// exits with an error alike.
func (s *winSession) ensureRecovery(sv *mgr.Service, r winRecovery) error {
	want := make([]mgr.RecoveryAction, len(r.Delays))
	for i, d := range r.Delays {
		want[i] = mgr.RecoveryAction{Type: mgr.ServiceRestart, Delay: d}
	}
	reset := uint32(r.ResetAfter / time.Second)
	cur, err1 := sv.RecoveryActions()
	curReset, err2 := sv.ResetPeriod()
	if err1 == nil && err2 == nil && slices.Equal(cur, want) && curReset == reset {
		s.printf("ok   recovery: %s", r)
	} else if err := s.act("set recovery: "+r.String(), func() error { return sv.SetRecoveryActions(want, reset) }); err != nil {
		return err
	}
	onExit, err := sv.RecoveryActionsOnNonCrashFailures()
	switch {
	case err == nil && onExit:
		return nil
	case err == nil || !unsupported(err):
		err = s.act("set recovery also on error exits",
			func() error { return sv.SetRecoveryActionsOnNonCrashFailures(true) })
		if !unsupported(err) {
			return err
		}
	}
	s.printf("warn recovery on error exits is not supported by this system (%v): only crashes restart the service",
		unwrapAll(err))
	return nil
}

// unwrapAll is the innermost error of err.
func unwrapAll(err error) error {
	for errors.Unwrap(err) != nil {
		err = errors.Unwrap(err)
	}
	return err
}

// unsupported reports whether err is a service manager saying it does not
// know a setting (wine's, or an old Windows').
func unsupported(err error) bool {
	return errors.Is(err, windows.ERROR_INVALID_LEVEL) || errors.Is(err, windows.ERROR_NOT_SUPPORTED) ||
		errors.Is(err, windows.ERROR_CALL_NOT_IMPLEMENTED)
}

// eventSourceKey is where an Event Log source of the Application log is
// registered.
const eventSourceKey = `SYSTEM\CurrentControlSet\Services\EventLog\Application\`

func (s *winSession) ensureEventSource(src string) error {
	if k, err := registry.OpenKey(registry.LOCAL_MACHINE, eventSourceKey+src, registry.QUERY_VALUE); err == nil {
		k.Close()
		s.printf("ok   Event Log source %s", src)
		return nil
	}
	return s.act("register Event Log source "+src, func() error {
		return eventlog.InstallAsEventCreate(src, eventlog.Error|eventlog.Warning|eventlog.Info)
	})
}

// startService starts the service unless it runs, and waits for it; a
// running one is restarted when changed says its binary or configuration
// changed. Stopping the agent leaves the game servers running; the
// restarted agent adopts them.
func (s *winSession) startService(ctx context.Context, sv *mgr.Service, changed bool) error {
	st, err := sv.Query()
	if err != nil {
		return fmt.Errorf("query service %s: %w", sv.Name, err)
	}
	if st.State == svc.Running && !changed {
		s.printf("ok   service %s is running", sv.Name)
		return nil
	}
	if st.State != svc.Stopped && st.State != svc.Running {
		s.printf("skip service %s: it is %s; run install again once it has settled", sv.Name, stateName(st.State))
		return nil
	}
	if st.State == svc.Running {
		err := s.act("restart service "+sv.Name+" (its binary or configuration changed; game servers keep running)",
			func() error {
				if _, err := sv.Control(svc.Stop); err != nil {
					return err
				}
				if err := waitState(ctx, sv, svc.Stopped); err != nil {
					return err
				}
				return startAndWait(ctx, sv)
			})
		return err
	}
	return s.act("start service "+sv.Name, func() error { return startAndWait(ctx, sv) })
}

func startAndWait(ctx context.Context, sv *mgr.Service) error {
	if err := sv.Start(); err != nil {
		return err
	}
	return waitState(ctx, sv, svc.Running)
}

// waitState polls the service until it is in want (or stopped, when
// waiting for a start that failed) or serviceWait passes.
func waitState(ctx context.Context, sv *mgr.Service, want svc.State) error {
	deadline := time.Now().Add(serviceWait)
	for {
		st, err := sv.Query()
		switch {
		case err != nil:
			return err
		case st.State == want:
			return nil
		case want == svc.Running && st.State == svc.Stopped:
			return fmt.Errorf("it stopped (exit code %d, service code %d): see the Event Log, source %s",
				st.Win32ExitCode, st.ServiceSpecificExitCode, windowsEventSource)
		case time.Now().After(deadline):
			return fmt.Errorf("still %s after %s", stateName(st.State), serviceWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func stateName(st svc.State) string {
	switch st {
	case svc.Stopped:
		return "stopped"
	case svc.StartPending:
		return "starting"
	case svc.StopPending:
		return "stopping"
	case svc.Running:
		return "running"
	case svc.Paused, svc.PausePending, svc.ContinuePending:
		return "paused"
	}
	return fmt.Sprintf("in state %d", st)
}
