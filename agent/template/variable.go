package template

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Type is a variable's type.
type Type string

// Variable types.
const (
	TypeString Type = "string"
	TypeInt    Type = "int"
	TypeBool   Type = "bool"
	TypeEnum   Type = "enum"
	TypeSecret Type = "secret" // a string never shown: not in errors, Spec.String or logs
	TypePort   Type = "port"   // an int 1-65535
	TypeURL    Type = "url"    // an absolute http or https URL
)

// Types are the variable types, in the order docs/templates.md lists them.
var Types = []Type{TypeString, TypeInt, TypeBool, TypeEnum, TypeSecret, TypePort, TypeURL}

// Variable is one [[variable]]: a typed value an operator fills in, used
// as {{KEY}} in the templated fields.
type Variable struct {
	Key         string   `toml:"key"`  // ValidKey and not Reserved
	Name        string   `toml:"name"` // the form's label; default Key
	Description string   `toml:"description"`
	Type        Type     `toml:"type"`    // one of Types
	Default     Scalar   `toml:"default"` // must satisfy the rules; "" is none
	Required    bool     `toml:"required"`
	Min         *int64   `toml:"min"`        // int, port
	Max         *int64   `toml:"max"`        // int, port
	MaxLength   int      `toml:"max_length"` // string, secret, url: at most this many characters (0: 4096)
	Pattern     string   `toml:"pattern"`    // string, secret: an RE2 the whole value must match
	Options     []string `toml:"options"`    // enum: the allowed values
	// UserVisible (default true): the panel shows the field; UserEditable
	// (default true): an operator may change it. A hidden or locked
	// variable keeps its default.
	UserVisible     *bool `toml:"user_visible"`
	UserEditable    *bool `toml:"user_editable"`
	RestartRequired bool  `toml:"restart_required"` // a change applies at the next start
}

// Visible reports user_visible (default true).
func (v *Variable) Visible() bool { return v.UserVisible == nil || *v.UserVisible }

// Editable reports user_editable (default true).
func (v *Variable) Editable() bool { return v.UserEditable == nil || *v.UserEditable }

// DefaultMaxLength bounds a string, secret or url value when max_length is
// not set.
const DefaultMaxLength = 4096

// Scalar is a TOML string, integer or boolean kept as its text ("28015",
// "true"), so that default = 28015 and default = "28015" mean the same.
type Scalar string

// UnmarshalTOML takes a string, an integer or a boolean.
func (s *Scalar) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*s = Scalar(x)
	case int64:
		*s = Scalar(strconv.FormatInt(x, 10))
	case bool:
		*s = Scalar(strconv.FormatBool(x))
	default:
		return fmt.Errorf("want a string, an integer or a boolean, not %T", v)
	}
	return nil
}

var keyRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)

// ValidKey reports whether k has the shape of a variable or environment
// key: ^[A-Z][A-Z0-9_]{0,63}$.
func ValidKey(k string) bool { return keyRE.MatchString(k) }

var envKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// ValidEnvKey reports whether k may name an environment variable in
// run.env: ^[A-Za-z_][A-Za-z0-9_]{0,127}$ (games read names like
// SteamAppId).
func ValidEnvKey(k string) bool { return envKeyRE.MatchString(k) }

// loaderNames are the reserved names a template may still set in run.env
// when run.exec is inside the instance root: the game's own files already
// run with the game's rights, and games need them (Rust's
// LD_LIBRARY_PATH, Carbon's LD_PRELOAD). With a host program (run.program)
// they are refused: they would make an allowed program load the instance's
// files.
var loaderNames = []string{"LD_LIBRARY_PATH", "LD_PRELOAD"}

// EnvKeyAllowed reports whether a template may set k in run.env, with
// run.exec inside the root (inRoot) or a host program.
func EnvKeyAllowed(k string, inRoot bool) bool {
	if !ValidEnvKey(k) {
		return false
	}
	if inRoot && slices.Contains(loaderNames, k) {
		return true
	}
	return !Reserved(strings.ToUpper(k)) // Windows names are case-insensitive
}

// reservedNames may be neither a variable's key nor a run.env key: the
// agent sets them (the base environment of docs/agent.md, and
// CORROSION_LICENSE_ID/CORROSION_INSTANCE_ID), or they change how the
// loader, the shell or the runtime behave.
var reservedNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "IFS", "ENV", "BASH_ENV", "CDPATH",
	"LANG", "LANGUAGE", "TZ", "TMPDIR", "HOSTNAME", "TERM",
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERPROFILE",
	"USERNAME", "USERDOMAIN", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS",
	"GCONV_PATH", "NLSPATH", "MALLOC_CHECK_", "HOSTALIASES", "RESOLV_HOST_CONF", "LOCALDOMAIN",
}

// reservedPrefixes: every key starting with one is reserved.
var reservedPrefixes = []string{"CORROSION_", "LD_", "DYLD_", "LC_", "BASH_FUNC_", "PROGRAMFILES", "COMMONPROGRAMFILES"}

// Reserved reports whether k is a reserved name (docs/templates.md lists
// them): a template may use it neither as a variable key nor, with the
// exception of EnvKeyAllowed, in run.env. k is compared as given.
func Reserved(k string) bool {
	if slices.Contains(reservedNames, k) {
		return true
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// Value errors, wrapped in a *FieldError naming the variable.
var (
	ErrUnknownVariable = errors.New("is not a variable of this template")
	ErrMissing         = errors.New("is required")
	ErrNotEditable     = errors.New("is not editable")
)

// Values checks values (variable key → text, as a form or a request sends
// them) against the template's variables and returns the complete set: the
// given values, and every other variable's default. Every problem is
// reported, joined, each a *FieldError named by the variable's key; a
// secret's value never appears in an error. A value for an unknown, or a
// non-editable variable that differs from its default, is refused.
func (t *Template) Values(values map[string]string) (map[string]string, error) {
	var p problems
	for _, k := range sortedKeys(values) {
		if t.variable(k) == nil {
			p.addErr(k, ErrUnknownVariable)
		}
	}
	out := make(map[string]string, len(t.Variables))
	for i := range t.Variables {
		v := &t.Variables[i]
		val, given := values[v.Key]
		if given && !v.Editable() && val != string(v.Default) {
			p.addErr(v.Key, ErrNotEditable)
			continue
		}
		if !given || val == "" {
			val = string(v.Default)
		}
		if val == "" {
			if v.Required {
				p.addErr(v.Key, ErrMissing)
			}
			out[v.Key] = ""
			continue
		}
		if err := v.check(val); err != nil {
			p.addErr(v.Key, err)
			continue
		}
		out[v.Key] = val
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return out, nil
}

func (t *Template) variable(key string) *Variable {
	for i := range t.Variables {
		if t.Variables[i].Key == key {
			return &t.Variables[i]
		}
	}
	return nil
}

// check tests one non-empty value against v's rules. Its error quotes the
// value unless v is a secret.
func (v *Variable) check(val string) error {
	shown := strconv.Quote(val)
	if v.Type == TypeSecret {
		shown = "the value"
	}
	if strings.ContainsAny(val, "\x00\r\n") {
		return fmt.Errorf("%s holds a NUL or a line break", shown)
	}
	switch v.Type {
	case TypeInt, TypePort:
		return v.checkInt(val, shown)
	case TypeBool:
		if val != "true" && val != "false" {
			return fmt.Errorf("%s is not a boolean (want true or false)", shown)
		}
	case TypeEnum:
		if !slices.Contains(v.Options, val) {
			return fmt.Errorf("%s is not one of %s", shown, strings.Join(v.Options, ", "))
		}
	case TypeString, TypeSecret, TypeURL:
		return v.checkText(val, shown)
	}
	return nil
}

func (v *Variable) checkInt(val, shown string) error {
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not an integer", shown)
	}
	if v.Type == TypePort && (n < 1 || n > 65535) {
		return fmt.Errorf("%s is not a port (want 1-65535)", shown)
	}
	if v.Min != nil && n < *v.Min {
		return fmt.Errorf("%s is less than %d", shown, *v.Min)
	}
	if v.Max != nil && n > *v.Max {
		return fmt.Errorf("%s is more than %d", shown, *v.Max)
	}
	return nil
}

func (v *Variable) checkText(val, shown string) error {
	limit := v.MaxLength
	if limit == 0 {
		limit = DefaultMaxLength
	}
	if n := utf8.RuneCountInString(val); n > limit {
		return fmt.Errorf("%s is %d characters long (at most %d)", shown, n, limit)
	}
	if !utf8.ValidString(val) {
		return fmt.Errorf("%s is not valid UTF-8", shown)
	}
	if v.Type == TypeURL && checkURL(val) != nil {
		return fmt.Errorf("%s is not an absolute http or https URL", shown)
	}
	if v.Pattern != "" {
		// Validate compiled the pattern; a template built by hand may not
		// have been validated, so a bad pattern is reported, not panicked on.
		re, err := regexp.Compile(`^(?:` + v.Pattern + `)$`)
		if err != nil {
			return fmt.Errorf("pattern %q does not compile: %w", v.Pattern, err)
		}
		if !re.MatchString(val) {
			return fmt.Errorf("%s does not match %s", shown, v.Pattern)
		}
	}
	return nil
}
