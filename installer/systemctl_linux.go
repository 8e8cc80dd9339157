package installer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// systemdRunning reports whether this host was booted with systemd (what
// sd_booted checks).
func systemdRunning() bool {
	fi, err := os.Stat("/run/systemd/system")
	return err == nil && fi.IsDir()
}

// systemctl runs systemctl (with --root=ROOT when Root is set) and returns
// its trimmed output; a non-zero exit is an error carrying that output.
// The error does not repeat the command: the caller names the step (act
// prints and prefixes it).
func (s *session) systemctl(ctx context.Context, args ...string) (string, error) {
	if s.o.Root != "" {
		args = append([]string{"--root=" + s.o.Root}, args...)
	}
	out, err := exec.CommandContext(ctx, "systemctl", args...).CombinedOutput()
	text := strings.TrimSpace(string(out))
	if err != nil && text != "" {
		err = fmt.Errorf("%w: %s", err, text)
	}
	return text, err
}

// serviceState is what systemd says about the agent's service.
type serviceState struct {
	enabled string // is-enabled: enabled, disabled, not-found, ...
	active  string // ActiveState (SubState): active (running), inactive (dead), ...; "" with Root
	pid     string // MainPID, "0" when none
	stale   bool   // NeedDaemonReload: the unit on disk is not the one systemd has loaded
}

// queryService asks systemd about the service. is-enabled exits non-zero
// for anything but enabled, so its output is what counts.
func (s *session) queryService(ctx context.Context) (serviceState, error) {
	var st serviceState
	out, err := s.systemctl(ctx, "is-enabled", ServiceName)
	st.enabled = firstLine(out)
	if err != nil && (st.enabled == "" || strings.Contains(st.enabled, " ")) {
		// Not a state word: "Failed to get unit file state ...: No such
		// file or directory" when the unit is not installed.
		if !errors.As(err, new(*exec.ExitError)) {
			return st, fmt.Errorf("systemctl is-enabled %s: %w", ServiceName, err) // systemctl is missing
		}
		st.enabled = "not-found"
	}
	if s.o.Root != "" {
		return st, nil
	}
	show, err := s.systemctl(ctx, "show", "--property=ActiveState,SubState,MainPID,NeedDaemonReload", ServiceName)
	if err != nil {
		return st, fmt.Errorf("systemctl show %s: %w", ServiceName, err)
	}
	props := map[string]string{}
	for _, line := range strings.Split(show, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			props[k] = v
		}
	}
	st.active = props["ActiveState"] + " (" + props["SubState"] + ")"
	st.pid = props["MainPID"]
	st.stale = props["NeedDaemonReload"] == "yes"
	return st, nil
}

func (st serviceState) isEnabled() bool { return st.enabled == "enabled" }
func (st serviceState) isActive() bool  { return strings.HasPrefix(st.active, "active ") }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}
