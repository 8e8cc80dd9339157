package template

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/corrosion/corrosion/agent/config"
)

// FieldError is one problem with one field: "FIELD: PROBLEM", FIELD being
// the TOML path with 0-based indexes ("source[2].http.sha256") or, from
// Values, the variable's key. It is agent/config's, so the agent reports a
// template's problems as it reports its own config's.
type FieldError = config.FieldError

// ErrUnknownKey marks a key no field of the format takes.
var ErrUnknownKey = config.ErrUnknownKey

// MaxSize bounds a template document; a larger one is refused unread.
const MaxSize = 256 << 10

// Parse decodes a template strictly (an unknown key is an error, named by
// its path), fills the defaults docs/templates.md gives for the keys it
// leaves out, and validates it. Errors: a TOML syntax or type error alone;
// otherwise every unknown key, joined; otherwise Validate's problems,
// joined; each joined problem a *FieldError.
func Parse(data []byte) (Template, error) {
	if len(data) > MaxSize {
		return Template{}, fmt.Errorf("template is %d bytes (at most %d)", len(data), MaxSize)
	}
	var t Template
	_, unknown, err := config.DecodeStrict(data, &t)
	if err != nil {
		return Template{}, fmt.Errorf("parse template: %w", err)
	}
	if len(unknown) > 0 {
		return Template{}, errors.Join(unknown...)
	}
	t.applyDefaults()
	if err := t.Validate(); err != nil {
		return Template{}, err
	}
	return t, nil
}

// Defaults for the keys a template leaves out.
const (
	DefaultReadyTimeout = 5 * time.Minute
	DefaultStopTimeout  = 30 * time.Second
	DefaultStopSignal   = "SIGTERM"
)

func (t *Template) applyDefaults() {
	for i := range t.Sources {
		if s := t.Sources[i].SteamCMD; s != nil {
			s.Platform = cmp.Or(s.Platform, PlatformLinux)
			s.Validate = cmp.Or(s.Validate, ValidateNever)
		}
	}
	r := &t.Run
	if r.Ready.Timeout.Duration == 0 {
		r.Ready.Timeout.Duration = DefaultReadyTimeout
	}
	if r.Stop.Kind == "" && r.Stop.Value == "" {
		r.Stop.Kind, r.Stop.Value = StopSignal, DefaultStopSignal
	}
	if r.Stop.Timeout.Duration == 0 {
		r.Stop.Timeout.Duration = DefaultStopTimeout
	}
	r.Stop.Then = cmp.Or(r.Stop.Then, StopThenKill)
	r.Console.Kind = cmp.Or(r.Console.Kind, ConsoleStdin)
	for i := range t.Variables {
		v := &t.Variables[i]
		v.Name = cmp.Or(v.Name, v.Key)
	}
}

// problems collects *FieldErrors.
type problems []error

func (p *problems) add(field, format string, args ...any) {
	p.addErr(field, fmt.Errorf(format, args...))
}

func (p *problems) addErr(field string, err error) {
	*p = append(*p, &FieldError{Field: field, Err: err})
}

func (p problems) err() error { return errors.Join(p...) }

// sortedKeys returns m's keys in order, for deterministic walks and errors.
func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
