package template

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Render checks values with t.Values and renders t into a Spec. Errors
// (each a *FieldError) name the field or variable, never a secret's value;
// two ports with the same number and protocol are refused.
func Render(t *Template, values map[string]string) (Spec, error) {
	vals, err := t.Values(values)
	if err != nil {
		return Spec{}, err
	}
	r := renderer{t: t, vals: vals}
	s := Spec{TemplateID: t.ID, Game: t.Game, Values: vals, Env: map[string]string{},
		Ready: ReadySpec{Regex: t.Run.Ready.Regex, Timeout: t.Run.Ready.Timeout.Duration},
		Stop:  StopSpec{Kind: t.Run.Stop.Kind, Value: t.Run.Stop.Value, Timeout: t.Run.Stop.Timeout.Duration}}
	s.Exec, s.ExecKind = t.Run.Exec, ExecInRoot
	if t.Run.Program != "" {
		s.Exec, s.ExecKind = t.Run.Program, ExecProgram
	}
	for i, a := range t.Run.Args {
		s.Args = append(s.Args, r.field(fmt.Sprintf("run.args[%d]", i), a))
	}
	for _, k := range sortedKeys(t.Run.Env) {
		s.Env[k] = r.field("run.env."+k, t.Run.Env[k])
	}
	for i, e := range t.Run.EnvIf {
		if !r.holds(&e.When) {
			continue
		}
		for _, k := range sortedKeys(e.Env) {
			s.Env[k] = r.field(fmt.Sprintf("run.env_if[%d].env.%s", i, k), e.Env[k])
		}
	}
	s.Ports = r.ports()
	s.Console = ConsoleSpec{Kind: t.Run.Console.Kind, Broadcast: t.Run.Console.Broadcast}
	if s.Console.Kind != ConsoleStdin {
		s.Console.Port = s.Port(t.Run.Console.Port)
		s.Console.Password = r.field("run.console.password", t.Run.Console.Password)
	}
	s.Sources = r.sources()
	s.Configs = r.configs()
	for _, v := range t.Variables {
		if v.Type == TypeSecret && vals[v.Key] != "" {
			s.secrets = append(s.secrets, vals[v.Key])
		}
	}
	if err := r.p.err(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// renderer expands templated fields with one set of checked values,
// collecting problems.
type renderer struct {
	t    *Template
	vals map[string]string
	p    problems
}

func (r *renderer) field(name, s string) string {
	out, err := expand(s, func(k string) (string, bool) {
		v, ok := r.vals[k]
		return v, ok
	})
	if err != nil {
		r.p.addErr(name, err)
	}
	return out
}

// checked renders a templated field and checks the result with check.
func (r *renderer) checked(name, s string, check func(string) error) string {
	n := len(r.p)
	out := r.field(name, s)
	if len(r.p) == n {
		if err := check(out); err != nil {
			r.p.addErr(name, err)
		}
	}
	return out
}

func (r *renderer) holds(c *Condition) bool { return r.vals[c.Variable] == c.Equals }

func (r *renderer) ports() []BoundPort {
	var out []BoundPort
	used := map[string]string{} // "udp/28015" → port name
	for i, pt := range r.t.Ports {
		n := pt.Default
		if pt.Variable != "" {
			n, _ = strconv.Atoi(r.vals[pt.Variable]) // Values checked it
			n += pt.Offset
		}
		key := string(pt.Protocol) + "/" + strconv.Itoa(n)
		switch {
		case n < 1 || n > 65535:
			r.p.add(fmt.Sprintf("port[%d]", i), "%q is %d, out of range (check %s)", pt.Name, n, pt.Variable)
		case used[key] != "":
			r.p.add(fmt.Sprintf("port[%d]", i), "%q uses %s, as port %q does", pt.Name, key, used[key])
		default:
			used[key] = pt.Name
		}
		out = append(out, BoundPort{Name: pt.Name, Protocol: pt.Protocol, Port: n})
	}
	return out
}

func (r *renderer) sources() []Source {
	var out []Source
	for i, src := range r.t.Sources {
		if src.When != nil && !r.holds(src.When) {
			continue
		}
		pre := fmt.Sprintf("source[%d]", i)
		if s := src.SteamCMD; s != nil {
			c := *s
			c.ExtraApps = slices.Clone(s.ExtraApps)
			c.Branch = r.field(pre+".steamcmd.branch", s.Branch)
			c.BetaPassword = r.field(pre+".steamcmd.beta_password", s.BetaPassword)
			src.SteamCMD = &c
		}
		if h := src.HTTP; h != nil {
			c := *h
			c.URL = r.checked(pre+".http.url", h.URL, checkURL)
			c.SHA256 = r.checked(pre+".http.sha256", h.SHA256, checkSHA256)
			src.HTTP = &c
		}
		if g := src.GitHubRelease; g != nil {
			c := *g
			src.GitHubRelease = &c
		}
		src.When = nil // held
		out = append(out, src)
	}
	return out
}

func (r *renderer) configs() []ConfigFile {
	var out []ConfigFile
	for i, c := range r.t.ConfigFiles {
		c.Set = maps.Clone(c.Set)
		for _, k := range sortedKeys(c.Set) {
			c.Set[k] = r.field(fmt.Sprintf("config_file[%d].set.%q", i, k), c.Set[k])
		}
		out = append(out, c)
	}
	return out
}
