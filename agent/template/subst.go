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

// segment is a literal piece of a templated field or, with ref set, the
// key of a {{KEY}} reference.
type segment struct {
	text string
	ref  bool
}

// segments splits s into literals and references, or says why s is
// malformed. It is the one reading of the syntax: References and expand
// both use it.
func segments(s string) ([]segment, error) {
	var out []segment
	for {
		before, after, found := strings.Cut(s, "{{")
		if strings.Contains(before, "}}") {
			return nil, fmt.Errorf("%w: \"}}\" without \"{{\"", ErrBadReference)
		}
		if before != "" {
			out = append(out, segment{text: before})
		}
		if !found {
			return out, nil
		}
		key, rest, closed := strings.Cut(after, "}}")
		if !closed {
			return nil, fmt.Errorf("%w: \"{{\" without \"}}\"", ErrBadReference)
		}
		if !ValidKey(key) {
			return nil, fmt.Errorf("%w: %q is not a variable key (want {{KEY}}, KEY as ^[A-Z][A-Z0-9_]{0,63}$)", ErrBadReference, key)
		}
		out = append(out, segment{text: key, ref: true})
		s = rest
	}
}

// References returns the variable keys s refers to, in order, or why s is
// malformed.
func References(s string) ([]string, error) {
	segs, err := segments(s)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, sg := range segs {
		if sg.ref {
			keys = append(keys, sg.text)
		}
	}
	return keys, nil
}

// expand replaces every {{KEY}} in s with lookup(KEY). lookup reports
// whether KEY is known; an unknown key is an error naming it. expand never
// puts a value in an error.
func expand(s string, lookup func(key string) (string, bool)) (string, error) {
	segs, err := segments(s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, sg := range segs {
		if !sg.ref {
			b.WriteString(sg.text)
			continue
		}
		v, ok := lookup(sg.text)
		if !ok {
			return "", fmt.Errorf("{{%s}}: %w", sg.text, ErrUnknownVariable)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}
