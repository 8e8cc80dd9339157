package config

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
)

// RestartPolicies are the values restart accepts.
var RestartPolicies = []string{RestartNever, RestartOnCrash, RestartAlways}

// ReadyTimeoutActions are the values ready_timeout_action accepts.
var ReadyTimeoutActions = []string{ReadyTimeoutRunning, ReadyTimeoutFail}

func (c *Config) validateInstances(p *problems) {
	seen := map[string]int{}
	for i := range c.Instances {
		in := &c.Instances[i]
		pre := "instance[" + strconv.Itoa(i) + "]."
		if j, dup := seen[in.ID]; dup {
			p.add(pre+"id", "%q duplicates instance[%d]", in.ID, j)
		} else {
			seen[in.ID] = i
		}
		in.validate(p, pre)
	}
}

func (in *Instance) validate(p *problems, pre string) {
	if !wire.ValidInstanceID(in.ID) {
		p.add(pre+"id", `%q is not a valid instance id (want [a-z0-9_-]{1,64}, not "host")`, in.ID)
	}
	if !slices.Contains(Games, in.Game) {
		p.add(pre+"game", "%q is not a known game (want %s)", in.Game, strings.Join(Games, ", "))
	}
	in.validateRoot(p, pre)
	if in.Managed() {
		if err := checkExec(in.Exec); err != nil {
			p.add(pre+"exec", "%w", err)
		}
	}
	for _, k := range sortedKeys(in.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			p.add(pre+"env", "%q is not a valid environment variable name", k)
		}
	}
	if in.StopTimeoutSeconds < 0 {
		p.add(pre+"stop_timeout_seconds", "%d is negative", in.StopTimeoutSeconds)
	}
	if _, err := regexp.Compile(in.ReadyPattern); err != nil {
		p.add(pre+"ready_pattern", "%q does not compile: %w", in.ReadyPattern, err)
	}
	if in.ReadyTimeoutSeconds < 1 {
		p.add(pre+"ready_timeout_seconds", "%d is too small (want at least 1)", in.ReadyTimeoutSeconds)
	}
	if !slices.Contains(ReadyTimeoutActions, in.ReadyTimeoutAction) {
		p.add(pre+"ready_timeout_action", "%q is not a ready timeout action (want %s)", in.ReadyTimeoutAction,
			strings.Join(ReadyTimeoutActions, ", "))
	}
	if (in.Managed() || in.Restart != "") && !slices.Contains(RestartPolicies, in.Restart) {
		p.add(pre+"restart", "%q is not a restart policy (want %s)", in.Restart, strings.Join(RestartPolicies, ", "))
	}
	if in.RCON != nil {
		in.RCON.validate(p, pre+"rcon.", in.Game)
	}
	in.validatePorts(p, pre)
}

// validatePorts checks [[instance.port]]: a port name, unique; tcp or udp;
// a number in range, each (number, protocol) once.
func (in *Instance) validatePorts(p *problems, pre string) {
	names := map[string]int{}
	numbers := map[Port]int{}
	for i, pt := range in.Ports {
		pp := pre + "port[" + strconv.Itoa(i) + "]."
		switch j, dup := names[pt.Name]; {
		case !wire.ValidPortName(pt.Name):
			p.add(pp+"name", "%q is not a port name (want [a-z][a-z0-9_]{0,31})", pt.Name)
		case dup:
			p.add(pp+"name", "%q duplicates port[%d]", pt.Name, j)
		default:
			names[pt.Name] = i
		}
		if pt.Protocol != wire.PortTCP && pt.Protocol != wire.PortUDP {
			p.add(pp+"protocol", "%q is not a protocol (want %s or %s)", pt.Protocol, wire.PortTCP, wire.PortUDP)
		}
		if pt.Port < 1 || pt.Port > 65535 {
			p.add(pp+"port", "%d is out of range (want 1-65535)", pt.Port)
			continue
		}
		key := Port{Protocol: pt.Protocol, Port: pt.Port}
		if j, dup := numbers[key]; dup {
			p.add(pp+"port", "%s %d is also port[%d]", pt.Protocol, pt.Port, j)
		} else {
			numbers[key] = i
		}
	}
}

// validateRoot: every instance names a root; a managed one's must be an
// existing directory (an unmanaged one may be missing: it reports
// missing_root).
func (in *Instance) validateRoot(p *problems, pre string) {
	if in.Root == "" {
		p.add(pre+"root", "must be set")
		return
	}
	if !in.Managed() {
		return
	}
	fi, err := os.Stat(in.Root)
	switch {
	case err != nil:
		p.add(pre+"root", "%q %w", in.Root, statErr(err))
	case !fi.IsDir():
		p.add(pre+"root", "%q is not a directory", in.Root)
	}
}

func (r *RCON) validate(p *problems, pre, game string) {
	switch r.Kind {
	case RCONSource, RCONWebRCON:
	case "":
		if InferRCONKind(game) == "" {
			p.add(pre+"kind", "must be set for game %q (want %s or %s)", game, RCONSource, RCONWebRCON)
		}
	default:
		p.add(pre+"kind", "%q is not an rcon kind (want %s or %s)", r.Kind, RCONSource, RCONWebRCON)
	}
	if r.Port < 1 || r.Port > 65535 {
		p.add(pre+"port", "%d is out of range (want 1-65535)", r.Port)
	}
	if r.Password == "" {
		p.add(pre+"password", "must not be empty")
	}
}
