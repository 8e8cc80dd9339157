package template

import (
	"errors"
	"fmt"
	"strings"
)

// A templated field refers to a variable as {{KEY}}: two braces, the key,
// two braces, no spaces. Any other "{{" or "}}" is an error, so a typo is
// found when the template is parsed, never left in a running game's
// arguments. There is no shell, no escaping and no expression: the value
// is put in as is.

// ErrBadReference marks a malformed {{…}} in a templated field.
var ErrBadReference = errors.New("malformed variable reference")

// expand replaces every {{KEY}} in s with lookup(KEY). lookup reports
// whether KEY is known; an unknown key is an error naming it. expand never
// puts a value in an error.
func expand(s string, lookup func(key string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		open := strings.Index(s, "{{")
		if open < 0 {
			if strings.Contains(s, "}}") {
				return "", fmt.Errorf("%w: \"}}\" without \"{{\"", ErrBadReference)
			}
			b.WriteString(s)
			return b.String(), nil
		}
		if strings.Contains(s[:open], "}}") {
			return "", fmt.Errorf("%w: \"}}\" without \"{{\"", ErrBadReference)
		}
		b.WriteString(s[:open])
		rest := s[open+2:]
		end := strings.Index(rest, "}}")
		if end < 0 {
			return "", fmt.Errorf("%w: \"{{\" without \"}}\"", ErrBadReference)
		}
		key := rest[:end]
		if !ValidKey(key) {
			return "", fmt.Errorf("%w: %q is not a variable key (want {{KEY}}, KEY as ^[A-Z][A-Z0-9_]{0,63}$)", ErrBadReference, key)
		}
		val, ok := lookup(key)
		if !ok {
			return "", fmt.Errorf("{{%s}}: %w", key, ErrUnknownVariable)
		}
		b.WriteString(val)
		s = rest[end+2:]
	}
}

// References returns the variable keys s refers to, in order, or the
// error expand would give.
func References(s string) ([]string, error) {
	var keys []string
	_, err := expand(s, func(k string) (string, bool) {
		keys = append(keys, k)
		return "", true
	})
	return keys, err
}
