package template

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// variables maps the egg's variables, their Laravel rules becoming the
// typed rules. A variable whose key is not valid or is reserved is listed,
// not kept; so is a rule with no equivalent.
func (im *eggImport) variables(vars []eggVar) {
	for i, ev := range vars {
		field := fmt.Sprintf("variables[%d]", i)
		switch {
		case !ValidKey(ev.EnvVariable):
			im.skip(field, "%q is not a variable key (want ^[A-Z][A-Z0-9_]{0,63}$)", ev.EnvVariable)
			continue
		case Reserved(ev.EnvVariable):
			im.skip(field, "%q is a reserved name", ev.EnvVariable)
			continue
		case im.t.variable(ev.EnvVariable) != nil:
			im.skip(field, "%q is declared twice", ev.EnvVariable)
			continue
		}
		vis, edit := ev.UserViewable, ev.UserEditable
		v := Variable{Key: ev.EnvVariable, Name: clip(strings.TrimSpace(ev.Name), 100), Description: ev.Description,
			Type: TypeString, Default: Scalar(rawString(ev.DefaultValue)), UserVisible: &vis, UserEditable: &edit,
			RestartRequired: true}
		im.rules(&v, field, eggRules(ev.Rules))
		switch {
		case secretName(v.Key) && v.Type == TypeString:
			v.Type = TypeSecret
		case strings.HasSuffix(v.Key, "PORT") && v.Type == TypeInt && (v.Max == nil || *v.Max <= 65535) &&
			(v.Min == nil || *v.Min >= 1):
			v.Type = TypePort
		}
		if v.Default != "" {
			if err := v.check(string(v.Default)); err != nil {
				im.skip(field+".default_value", "does not satisfy the rules (%v): dropped", err)
				v.Default = ""
			}
		}
		if !v.Editable() && v.Required && v.Default == "" {
			edit = true
		}
		im.t.Variables = append(im.t.Variables, v)
	}
}

// secretName: a variable named like a password is a secret (never shown).
func secretName(key string) bool {
	return strings.Contains(key, "PASS") || strings.HasSuffix(key, "_PW") || strings.Contains(key, "TOKEN") ||
		strings.Contains(key, "SECRET")
}

// eggRules splits "a|b:c" or ["a", "b:c"].
func eggRules(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	return strings.Split(rawString(raw), "|")
}

// rules applies Laravel validation rules. Types first (they decide what
// min and max mean), then the bounds.
func (im *eggImport) rules(v *Variable, field string, rules []string) {
	type bound struct{ name, arg string }
	var bounds []bound
	for _, r := range rules {
		name, arg, _ := strings.Cut(strings.TrimSpace(r), ":")
		switch name {
		case "", "string", "sometimes", "present", "filled":
		case "required":
			v.Required = true
		case "nullable":
			v.Required = false
		case "numeric", "integer", "int":
			v.Type = TypeInt
		case "boolean", "bool":
			v.Type, v.Options = TypeEnum, []string{"0", "1", "true", "false"}
		case "url", "active_url":
			v.Type = TypeURL
		case "in":
			v.Type, v.Options = TypeEnum, strings.Split(arg, ",")
		case "alpha_dash":
			v.Pattern = `[A-Za-z0-9_-]*`
		case "alpha_num":
			v.Pattern = `[A-Za-z0-9]*`
		case "regex":
			im.regexRule(v, field, arg)
		case "max", "min", "between", "digits", "size":
			bounds = append(bounds, bound{name, arg})
		default:
			im.skip(field+".rules", "rule %q has no equivalent", r)
		}
	}
	for _, b := range bounds {
		im.bound(v, field, b.name, b.arg)
	}
}

// regexRule takes a PHP /pattern/ that RE2 compiles.
func (im *eggImport) regexRule(v *Variable, field, arg string) {
	p := arg
	if len(p) >= 2 && p[0] == '/' && strings.LastIndex(p, "/") > 0 {
		end := strings.LastIndex(p, "/")
		if flags := p[end+1:]; flags != "" {
			im.skip(field+".rules", "regex flags %q dropped", flags)
		}
		p = p[1:end]
	}
	p = strings.TrimSuffix(strings.TrimPrefix(p, "^"), "$")
	if _, err := regexp.Compile(p); err != nil || (v.Type != TypeString && v.Type != TypeSecret) {
		im.skip(field+".rules", "regex %q is not an RE2 pattern on a string", arg)
		return
	}
	v.Pattern = p
}

func (im *eggImport) bound(v *Variable, field, name, arg string) {
	lo, hi, isRange := strings.Cut(arg, ",")
	a, errA := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
	b, errB := strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
	if errA != nil || (isRange && errB != nil) || a < 0 {
		im.skip(field+".rules", "%s:%s is not a bound", name, arg)
		return
	}
	switch {
	case v.Type == TypeInt && name == "min":
		v.Min = &a
	case v.Type == TypeInt && name == "max":
		v.Max = &a
	case v.Type == TypeInt && name == "between" && isRange:
		v.Min, v.Max = &a, &b
	case (v.Type == TypeString || v.Type == TypeURL) && name == "max" && a >= 1 && a <= DefaultMaxLength:
		v.MaxLength = int(a)
	case v.Type == TypeString && name == "min" && v.Pattern == "" && a <= 1000:
		v.Pattern = fmt.Sprintf(`(?s).{%d,}`, a)
	case v.Type == TypeString && name == "between" && isRange && v.Pattern == "" && a <= b && b <= 1000:
		v.Pattern = fmt.Sprintf(`(?s).{%d,%d}`, a, b)
	case v.Type == TypeString && name == "size" && v.Pattern == "" && a <= 1000:
		v.Pattern = fmt.Sprintf(`(?s).{%d}`, a)
	default:
		im.skip(field+".rules", "%s:%s has no equivalent on a %s variable", name, arg, v.Type)
	}
}
