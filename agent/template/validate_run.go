package template

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

func (t *Template) validateRun(p *problems) {
	r := &t.Run
	switch {
	case (r.Exec == "") == (r.Program == ""):
		p.add("run", "must set exactly one of exec, program")
	case r.Exec != "":
		relPath(p, "run.exec", r.Exec, false)
	default:
		if strings.ContainsAny(r.Program, "\x00") || (strings.ContainsAny(r.Program, `/\`) && !path.IsAbs(r.Program)) ||
			strings.Contains(r.Program, "..") {
			p.add("run.program", "%q is neither a program name nor an absolute path", r.Program)
		}
	}
	for i, a := range r.Args {
		t.templated(p, fmt.Sprintf("run.args[%d]", i), a)
	}
	t.validateEnv(p, "run.env", r.Env)
	for i := range r.EnvIf {
		pre := fmt.Sprintf("run.env_if[%d]", i)
		t.validateCondition(p, pre+".when", &r.EnvIf[i].When)
		if len(r.EnvIf[i].Env) == 0 {
			p.add(pre+".env", "is empty")
		}
		t.validateEnv(p, pre+".env", r.EnvIf[i].Env)
	}
	if _, err := regexp.Compile(r.Ready.Regex); err != nil {
		p.add("run.ready.regex", "%q does not compile: %w", r.Ready.Regex, err)
	}
	if r.Ready.Timeout.Duration <= 0 {
		p.add("run.ready.timeout", "%s is not positive", r.Ready.Timeout.Duration)
	}
	t.validateStop(p)
	t.validateConsole(p)
}

func (t *Template) validateEnv(p *problems, pre string, env map[string]string) {
	for _, k := range sortedKeys(env) {
		switch {
		case !ValidEnvKey(k):
			p.add(pre, "%q is not an environment key (want ^[A-Za-z_][A-Za-z0-9_]{0,127}$)", k)
		case !EnvKeyAllowed(k, t.Run.Exec != ""):
			p.add(pre, "%q is a reserved name", k)
		default:
			t.templated(p, pre+"."+k, env[k])
		}
	}
}

func (t *Template) validateStop(p *problems) {
	s := &t.Run.Stop
	switch s.Kind {
	case StopSignal:
		oneOf(p, "run.stop.value", s.Value, Signals)
	case StopCommand, StopRCON:
		if strings.TrimSpace(s.Value) == "" || strings.ContainsAny(s.Value, "\x00\r\n") {
			p.add("run.stop.value", "%q is not a one-line command", s.Value)
		}
		if s.Kind == StopRCON && t.Run.Console.Kind == ConsoleStdin {
			p.add("run.stop.kind", "is rcon but run.console is stdin (want an RCON console)")
		}
	default:
		p.add("run.stop.kind", "%q is not one of %s", s.Kind, strings.Join(quoteAll([]StopKind{StopCommand, StopSignal, StopRCON}), ", "))
	}
	if s.Timeout.Duration <= 0 {
		p.add("run.stop.timeout", "%s is not positive", s.Timeout.Duration)
	}
	oneOf(p, "run.stop.then", s.Then, []string{StopThenKill})
}

func (t *Template) validateConsole(p *problems) {
	c := &t.Run.Console
	validateBroadcast(p, c.Broadcast)
	switch c.Kind {
	case ConsoleStdin:
		if c.Port != "" || c.Password != "" {
			p.add("run.console", "a stdin console takes no port or password")
		}
		return
	case ConsoleSourceRCON, ConsoleWebRCON:
	default:
		p.add("run.console.kind", "%q is not one of %s", c.Kind,
			strings.Join(quoteAll([]ConsoleKind{ConsoleStdin, ConsoleSourceRCON, ConsoleWebRCON}), ", "))
		return
	}
	if pt := t.port(c.Port); pt == nil || pt.Protocol != ProtocolTCP {
		p.add("run.console.port", "%q is not a tcp port of this template", c.Port)
	}
	if c.Password == "" {
		p.add("run.console.password", "must be set for an RCON console")
	}
	t.templated(p, "run.console.password", c.Password)
}

func (t *Template) port(name string) *Port {
	for i := range t.Ports {
		if t.Ports[i].Name == name {
			return &t.Ports[i]
		}
	}
	return nil
}

func (t *Template) validateVariables(p *problems) {
	seen := map[string]int{}
	for i := range t.Variables {
		v := &t.Variables[i]
		pre := fmt.Sprintf("variable[%d]", i)
		switch {
		case !ValidKey(v.Key):
			p.add(pre+".key", "%q is not a variable key (want ^[A-Z][A-Z0-9_]{0,63}$)", v.Key)
		case Reserved(v.Key):
			p.add(pre+".key", "%q is a reserved name", v.Key)
		default:
			if j, dup := seen[v.Key]; dup {
				p.add(pre+".key", "%q duplicates variable[%d]", v.Key, j)
			}
			seen[v.Key] = i
		}
		text(p, pre+".name", v.Name, 100)
		if !slices.Contains(Types, v.Type) {
			p.add(pre+".type", "%q is not one of %s", v.Type, strings.Join(quoteAll(Types), ", "))
			continue
		}
		v.validateRules(p, pre)
	}
}

// validateRules: each rule only on the types it applies to, consistent,
// and the default satisfying them.
func (v *Variable) validateRules(p *problems, pre string) {
	numeric := v.Type == TypeInt || v.Type == TypePort
	textual := v.Type == TypeString || v.Type == TypeSecret || v.Type == TypeURL
	if !numeric && (v.Min != nil || v.Max != nil) {
		p.add(pre+".min", "applies to int and port variables only, not %s", v.Type)
	}
	if v.Min != nil && v.Max != nil && *v.Min > *v.Max {
		p.add(pre+".max", "%d is less than min %d", *v.Max, *v.Min)
	}
	if !textual && v.MaxLength != 0 {
		p.add(pre+".max_length", "applies to string, secret and url variables only, not %s", v.Type)
	}
	if v.MaxLength < 0 || v.MaxLength > DefaultMaxLength {
		p.add(pre+".max_length", "%d is out of range (want 1-%d)", v.MaxLength, DefaultMaxLength)
	}
	if v.Pattern != "" {
		if v.Type != TypeString && v.Type != TypeSecret {
			p.add(pre+".pattern", "applies to string and secret variables only, not %s", v.Type)
		} else if _, err := regexp.Compile(v.Pattern); err != nil {
			p.add(pre+".pattern", "%q does not compile: %w", v.Pattern, err)
			return
		}
	}
	v.validateOptions(p, pre)
	if v.Default != "" {
		if err := v.check(string(v.Default)); err != nil {
			p.add(pre+".default", "%w", err)
		}
	}
	if !v.Editable() && v.Required && v.Default == "" {
		p.add(pre+".user_editable", "is false for a required variable without a default")
	}
}

func (v *Variable) validateOptions(p *problems, pre string) {
	if v.Type != TypeEnum {
		if len(v.Options) > 0 {
			p.add(pre+".options", "applies to enum variables only, not %s", v.Type)
		}
		return
	}
	if len(v.Options) == 0 {
		p.add(pre+".options", "is empty (an enum needs at least one option)")
	}
	seen := map[string]bool{}
	for i, o := range v.Options {
		switch {
		case o == "" || strings.ContainsAny(o, "\x00\r\n"):
			p.add(fmt.Sprintf("%s.options[%d]", pre, i), "%q is not an option", o)
		case seen[o]:
			p.add(fmt.Sprintf("%s.options[%d]", pre, i), "%q is listed twice", o)
		}
		seen[o] = true
	}
}

// validateBroadcast checks run.console.broadcast: empty (no broadcast), or
// one line of at most maxBroadcast bytes holding MessagePlaceholder once.
func validateBroadcast(p *problems, b string) {
	const field = "run.console.broadcast"
	switch n := strings.Count(b, MessagePlaceholder); {
	case b == "":
	case len(b) > maxBroadcast:
		p.add(field, "is %d bytes long (at most %d)", len(b), maxBroadcast)
	case strings.ContainsAny(b, "\r\n\x00"):
		p.add(field, "must be one line (a console command)")
	case n != 1:
		p.add(field, "%q has %s %d times; want it exactly once (e.g. %q)", b, MessagePlaceholder, n, "say "+MessagePlaceholder)
	}
}
