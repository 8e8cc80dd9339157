package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/portowner"
)

// How a created instance's template becomes something the agent runs: the
// template found (built-in, or the TOML the panel sent), rendered with the
// values, its program checked, its root under instances_root and its
// ports free. Every refusal is a *wire.Error with a provisioning code and
// the field it is about.

// fieldErr is a refusal of one request field.
func fieldErr(code, field, format string, args ...any) *wire.Error {
	e := wire.Errorf(code, format, args...)
	e.Field = field
	return e
}

// findTemplate returns the template named id, or the one toml holds.
func findTemplate(id, toml string) (template.Template, error) {
	if toml != "" {
		t, err := template.Parse([]byte(toml))
		if err != nil {
			return template.Template{}, fieldErr(wire.CodeInvalidValue, "template_toml", "the template does not parse: %v", err)
		}
		if id != "" && id != t.ID {
			return template.Template{}, fieldErr(wire.CodeInvalidValue, "template",
				"template %q names another template than template_toml's %q", id, t.ID)
		}
		return t, nil
	}
	ts, err := template.Builtins()
	if err != nil {
		return template.Template{}, wire.Errorf(wire.CodeInternal, "%v", err)
	}
	for _, t := range ts {
		if t.ID == id {
			return t, nil
		}
	}
	return template.Template{}, fieldErr(wire.CodeUnknownTemplate, "template", "no template %q on this agent (see the templates func)", id)
}

// renderSpec renders t with values; a problem names its field (a variable's
// key for a value, a template path otherwise) and never a secret's value.
func renderSpec(t *template.Template, values map[string]string) (template.Spec, error) {
	spec, err := template.Render(t, values)
	if err == nil {
		return spec, nil
	}
	e := wire.Errorf(wire.CodeInvalidValue, "%v", err)
	var fe *template.FieldError
	if errors.As(err, &fe) {
		e.Field = fe.Field
	}
	return template.Spec{}, e
}

// prepareCreated checks rec (its template, values and program) and returns the
// instance it describes; root is instances_root/{id}. It touches nothing.
func (a *Agent) prepareCreated(rec provRecord) (*provisioned, *config.Instance, error) {
	t, err := findTemplate(rec.Template, rec.TemplateTOML)
	if err != nil {
		return nil, nil, err
	}
	spec, err := renderSpec(&t, rec.Values)
	if err != nil {
		return nil, nil, err
	}
	root := a.instanceRoot(rec.ID)
	exec, err := a.execPath(root, &spec)
	if err != nil {
		return nil, nil, err
	}
	rec.Template = t.ID
	return &provisioned{rec: rec, tmpl: t, spec: spec}, instanceConfig(rec, root, exec, &spec), nil
}

// instanceRoot is where instance id keeps its files.
func (a *Agent) instanceRoot(id string) string { return filepath.Join(a.cfg.Agent.InstancesRoot, id) }

// execPath is the program a spec runs: a path inside root, or a host
// program this host lists in allowed_programs.
func (a *Agent) execPath(root string, s *template.Spec) (string, error) {
	if s.ExecKind == template.ExecInRoot {
		if !filepath.IsLocal(filepath.FromSlash(s.Exec)) {
			return "", fieldErr(wire.CodeProgramNotAllowed, "run.exec", "run.exec %q leaves the instance root", s.Exec)
		}
		return filepath.Join(root, filepath.FromSlash(s.Exec)), nil
	}
	path, err := config.ResolveProgram(s.Exec)
	if err != nil {
		return "", fieldErr(wire.CodeProgramNotAllowed, "run.program", "run.program: %v", err)
	}
	if !a.cfg.Agent.ProgramAllowed(path) {
		return "", fieldErr(wire.CodeProgramNotAllowed, "run.program",
			"run.program %q is not one of this host's allowed_programs (agent.toml [agent])", s.Exec)
	}
	return path, nil
}

// instanceConfig is the [[instance]] a created instance amounts to.
func instanceConfig(rec provRecord, root, exec string, s *template.Spec) *config.Instance {
	ic := &config.Instance{
		ID: rec.ID, Game: s.Game, Label: rec.Label, Root: root, Exec: exec,
		Args:                s.Args,
		StopTimeoutSeconds:  ceilSecs(s.Stop.Timeout.Seconds()),
		ReadyPattern:        s.Ready.Regex,
		ReadyTimeoutSeconds: max(ceilSecs(s.Ready.Timeout.Seconds()), 1),
		ReadyTimeoutAction:  config.ReadyTimeoutRunning,
		Restart:             config.RestartOnCrash,
	}
	if ic.Label == "" {
		ic.Label = rec.ID
	}
	// HOME is the instance root: what a game keeps in its home (minetest's
	// ~/.minetest, wine's prefix, Unity's ~/.config) stays with the
	// instance, and the agent's user need not have a home of its own.
	ic.Env = maps.Clone(s.Env)
	if ic.Env == nil {
		ic.Env = map[string]string{}
	}
	ic.Env["HOME"] = root
	// A stop command goes to the console (an RCON one when the console
	// is RCON), a signal is sent as named.
	switch {
	case s.Stop.Kind == template.StopCommand && s.Console.Kind == template.ConsoleStdin:
		ic.StopCommand = s.Stop.Value
	case s.Stop.Kind == template.StopCommand, s.Stop.Kind == template.StopRCON:
		ic.StopRCON = s.Stop.Value
	case s.Stop.Kind == template.StopSignal:
		ic.StopSignal = s.Stop.Value
	}
	for _, p := range s.Ports {
		ic.Ports = append(ic.Ports, config.Port{Name: p.Name, Protocol: string(p.Protocol), Port: p.Port})
	}
	switch s.Console.Kind {
	case template.ConsoleSourceRCON:
		ic.RCON = &config.RCON{Kind: config.RCONSource, Port: s.Console.Port, Password: s.Console.Password}
	case template.ConsoleWebRCON:
		ic.RCON = &config.RCON{Kind: config.RCONWebRCON, Port: s.Console.Port, Password: s.Console.Password}
	}
	return ic
}

func ceilSecs(s float64) int { return int(math.Ceil(s)) }

// portField is the request field a port's number comes from: its port
// variable's key, else its path in the template.
func portField(t *template.Template, name string) string {
	for i, p := range t.Ports {
		if p.Name == name {
			if p.Variable != "" {
				return p.Variable
			}
			return fmt.Sprintf("port[%d]", i)
		}
	}
	return "port"
}

// declaredPorts lists the ports inst declares: its ports
// ([[instance.port]], or a created instance's template ports), and an
// RCON port (tcp).
func (a *Agent) declaredPorts(inst *instance) []template.BoundPort {
	var out []template.BoundPort
	for _, p := range inst.conf().Ports {
		out = append(out, template.BoundPort{Name: p.Name, Protocol: template.Protocol(p.Protocol), Port: p.Port})
	}
	if inst.conf().RCON != nil {
		out = append(out, template.BoundPort{Name: "rcon", Protocol: template.ProtocolTCP, Port: inst.conf().RCON.Port})
	}
	return out
}

// checkPorts refuses a port of s that another instance declares, or that
// another process holds (a port in keep is the instance's own already and
// is not probed: its game may be running on it).
func (a *Agent) checkPorts(id string, t *template.Template, s *template.Spec, keep []template.BoundPort) error {
	for _, p := range s.Ports {
		for _, other := range a.list() {
			if other.conf().ID == id {
				continue
			}
			for _, q := range a.declaredPorts(other) {
				if q.Protocol == p.Protocol && q.Port == p.Port {
					return fieldErr(wire.CodePortInUse, portField(t, p.Name),
						"port %s (%s/%d) is declared by instance %s", p.Name, p.Protocol, p.Port, other.conf().ID)
				}
			}
		}
		if containsPort(keep, p) {
			continue
		}
		if err := probeBind(p); err != nil {
			return fieldErr(wire.CodePortInUse, portField(t, p.Name), "port %s (%s/%d) is in use by %s",
				p.Name, p.Protocol, p.Port, err)
		}
	}
	return nil
}

func containsPort(ps []template.BoundPort, p template.BoundPort) bool {
	for _, q := range ps {
		if q.Protocol == p.Protocol && q.Port == p.Port {
			return true
		}
	}
	return false
}

// probeBind binds p on every address for a moment; an error names who
// holds it ("pid 42 (/usr/bin/x)", or "another program").
func probeBind(p template.BoundPort) error {
	addr := ":" + strconv.Itoa(p.Port)
	if p.Protocol == template.ProtocolUDP {
		c, err := net.ListenPacket("udp", addr)
		if err != nil {
			return errors.New("another program")
		}
		return c.Close()
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.New(portowner.Describe(p.Port))
	}
	return l.Close()
}

// makeRoot creates instance id's root under instances_root (and
// instances_root when missing), as the agent's user. An existing directory
// is kept (the files of an instance deleted without purge); anything else
// at that name, a symbolic link above all, is refused: the root would
// leave instances_root. made says the directory is new.
func (a *Agent) makeRoot(id string) (made bool, err error) {
	base := a.cfg.Agent.InstancesRoot
	if err := os.MkdirAll(base, 0o755); err != nil {
		return false, wire.Errorf(wire.CodeInternal, "create instances_root: %v", err)
	}
	r, err := os.OpenRoot(base)
	if err != nil {
		return false, wire.Errorf(wire.CodeInternal, "open instances_root: %v", err)
	}
	defer r.Close()
	fi, err := r.Lstat(id)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := r.Mkdir(id, 0o750); err != nil {
			return false, wire.Errorf(wire.CodeInternal, "create the instance root: %v", err)
		}
		return true, nil
	case err != nil:
		return false, wire.Errorf(wire.CodeInternal, "check the instance root: %v", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, fieldErr(wire.CodeRootEscape, "id", "the instance root %s in instances_root is a symbolic link: it would leave instances_root", id)
	case !fi.IsDir():
		return false, fieldErr(wire.CodeRootEscape, "id", "%s in instances_root is not a directory", id)
	}
	return false, nil
}
