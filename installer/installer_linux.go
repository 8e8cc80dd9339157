package installer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func defaultConfigPath() string { return linuxConfig }

// install puts the agent in place as a systemd service. Order: the service
// account, /etc/corrosion, the binary, the config (never overwritten), the
// state and games directories, the unit, then systemd (daemon-reload;
// enable --now only when the config validates).
func install(ctx context.Context, o Options) error {
	s, err := newSession(o, "install")
	if err != nil {
		return err
	}
	if err := s.ensureUser(ctx); err != nil {
		return err
	}
	if err := s.ensureDir(ConfigDir, 0o755, rootOwned); err != nil {
		return err
	}
	binChanged, err := s.installBinary()
	if err != nil {
		return err
	}
	if _, err := s.writeFile(s.o.ConfigPath, []byte(ConfigTemplate), 0o640, rootService, keepExisting); err != nil {
		return err
	}
	for _, d := range []string{StateDir, GamesDir} {
		if err := s.ensureDir(d, 0o750, serviceOwned); err != nil {
			return err
		}
	}
	unit := SystemdUnit(UnitOptions{Binary: BinaryPath, ConfigPath: s.o.ConfigPath})
	unitChanged, err := s.writeFile(UnitPath, []byte(unit), 0o644, rootOwned, replaceDifferent)
	if err != nil {
		return err
	}
	return s.activate(ctx, unitChanged || binChanged)
}

// installBinary copies the agent binary to BinaryPath unless the same
// bytes are there already, and reports whether it changed (or would).
func (s *session) installBinary() (bool, error) {
	src, err := sourceBinary(s.o)
	if err != nil {
		return false, err
	}
	dst := s.host(BinaryPath)
	if same, _ := filepath.EvalSymlinks(dst); same == src {
		s.ok("%s (this binary)", BinaryPath)
		return false, nil
	}
	return s.copyAgentBinary(src, dst, BinaryPath, BinaryPath+" 0755 root:root",
		func(data []byte) error { return s.writeAtomic(dst, data, 0o755, rootOwned) })
}

// activate tells systemd: daemon-reload after a change, then enable --now
// when the config validates (restart when the binary or unit changed
// under a running agent: games keep running), or say what to fix. With
// Root only the unit is enabled, offline.
func (s *session) activate(ctx context.Context, changed bool) error {
	if s.o.Root == "" && !systemdRunning() {
		if why, problems := s.blockers(ctx); problems != nil {
			s.notEnabled(why, problems)
		}
		s.skip("systemctl: systemd is not running on this host (no /run/systemd/system); start `%s run --config %s` as user %s yourself",
			BinaryPath, s.o.ConfigPath, ServiceUser)
		return nil
	}
	changed, err := s.reload(ctx, changed)
	if err != nil {
		return err
	}
	if why, problems := s.blockers(ctx); problems != nil {
		s.notEnabled(why, problems)
		return nil
	}
	st, err := s.queryService(ctx)
	if err != nil {
		return err
	}
	switch {
	case s.o.Root != "" && st.isEnabled():
		s.ok("service %s enabled (not started: --root)", ServiceName)
		return nil
	case s.o.Root != "":
		return s.act(fmt.Sprintf("systemctl --root=%s enable %s (offline: nothing is started)", s.o.Root, ServiceName),
			func() error { _, err := s.systemctl(ctx, "enable", ServiceName); return err })
	case !st.isEnabled() || !st.isActive():
		return s.act("systemctl enable --now "+ServiceName,
			func() error { _, err := s.systemctl(ctx, "enable", "--now", ServiceName); return err })
	case changed:
		return s.act("systemctl restart "+ServiceName+" (new binary or unit; game servers keep running and are adopted)",
			func() error { _, err := s.systemctl(ctx, "restart", ServiceName); return err })
	}
	s.ok("service %s enabled and %s", ServiceName, st.active)
	return nil
}

// blockers is why the service may not be enabled: the config's problems
// (read as root, with agent.env), else the service user's (on the real
// system); nil problems when nothing blocks it.
func (s *session) blockers(ctx context.Context) (why string, problems []string) {
	if problems := s.configProblems(); problems != nil {
		return "does not validate yet", problems
	}
	return "does not validate as user " + ServiceUser + " (as the service checks it)", s.serviceProblems(ctx)
}

// reload runs daemon-reload on the real system when the unit or binary
// changed, or when systemd has not loaded the unit on disk (an install
// interrupted before its daemon-reload, a unit edited by hand); the latter
// counts as a change, so a running agent is restarted on the unit on disk.
func (s *session) reload(ctx context.Context, changed bool) (bool, error) {
	if s.o.Root != "" {
		return changed, nil
	}
	st, err := s.queryService(ctx)
	if err != nil {
		return changed, err
	}
	if !changed && !st.stale {
		return false, nil
	}
	return true, s.act("systemctl daemon-reload", func() error {
		_, err := s.systemctl(ctx, "daemon-reload")
		return err
	})
}

// notEnabled says why the service was not enabled and what to do next.
func (s *session) notEnabled(why string, problems []string) {
	cfg := s.o.ConfigPath
	s.skip("enable %s: %s %s:", ServiceName, cfg, why)
	for _, p := range problems {
		s.printf("       %s", p)
	}
	s.printf("     next: edit %s, check it with `sudo -u %s %s validate --config %s`,", cfg, ServiceUser, BinaryPath, cfg)
	s.printf("           then run `sudo %s install` again (or `sudo systemctl enable --now %s`)", BinaryPath, ServiceName)
}

// configProblems validates the config the service will read (the
// template, in a dry run that would write it) with the variables of
// agent.env, one problem per line; nil when it is valid.
func (s *session) configProblems() []string {
	data, err := os.ReadFile(s.host(s.o.ConfigPath))
	if errors.Is(err, fs.ErrNotExist) && s.o.DryRun {
		data, err = []byte(ConfigTemplate), nil
	}
	if err != nil {
		return []string{fmt.Sprintf("read config: %v", err)}
	}
	env := map[string]string{}
	if b, err := os.ReadFile(s.host(EnvFilePath)); err == nil {
		env = parseEnvFile(b)
	}
	err = s.o.validateConfig(data, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}
