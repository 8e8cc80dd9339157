package installer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// servicePath is the PATH systemd gives a service (its default).
const servicePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// validateTimeout bounds the service user's `validate` run.
const validateTimeout = 30 * time.Second

// serviceProblems runs the installed agent's `validate` the way the unit's
// ExecStartPre will: as the service user, in the state directory, with
// systemd's PATH, the user's variables and those of agent.env. Root
// validates a config that the service cannot (a config only root can
// read, an exec or root below a directory only root may enter); enabling
// it would leave a service failing its ExecStartPre every 5 s. It returns
// validate's output, a line each, when it fails; nil when it passes, and
// with Root or in a dry run (configProblems said what it could).
func (s *session) serviceProblems(ctx context.Context) []string {
	if s.o.Root != "" || s.o.DryRun {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, validateTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, BinaryPath, "validate", "--config", s.o.ConfigPath)
	cmd.Dir = StateDir
	cmd.Env = []string{"PATH=" + servicePath, "HOME=" + StateDir, "USER=" + ServiceUser,
		"LOGNAME=" + ServiceUser, "SHELL=/usr/sbin/nologin"}
	if b, err := os.ReadFile(EnvFilePath); err == nil {
		env := parseEnvFile(b)
		for _, k := range slices.Sorted(maps.Keys(env)) {
			cmd.Env = append(cmd.Env, k+"="+env[k])
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{
		Uid: uint32(s.acc.uid), Gid: uint32(s.acc.gid), Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	if !errors.As(err, new(*exec.ExitError)) || ctx.Err() != nil {
		return []string{fmt.Sprintf("run `%s validate` as user %s: %v", BinaryPath, ServiceUser, err)}
	}
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			problems = append(problems, line)
		}
	}
	return problems
}
