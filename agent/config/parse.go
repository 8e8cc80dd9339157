package config

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"

	"github.com/BurntSushi/toml"
)

// ErrUnknownKey marks a key in the file that no field takes (a typo, or a
// key of a newer agent).
var ErrUnknownKey = errors.New("unknown key")

// Load reads the file at path and parses it with the process environment
// (see Parse). A problem in the file is reported as "config PATH:" followed
// by one problem per line.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err := Parse(data, os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("config %s:\n%w", path, err)
	}
	return c, nil
}

// Parse decodes a TOML config strictly (an unknown key is an error), expands
// ${VAR} in every string value with lookupEnv (os.LookupEnv when nil),
// applies the defaults to the keys the file leaves out, and validates. A
// key the file sets is used as written, even when it is zero: a default
// never hides an explicit value.
//
// Errors: a TOML syntax or type error alone (with its line and column);
// otherwise every unknown key and every expansion problem, joined; otherwise
// Validate's problems, joined. Each joined problem is a *FieldError.
func Parse(data []byte, lookupEnv func(string) (string, bool)) (*Config, error) {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	var c Config
	raw, errs, err := DecodeStrict(data, &c)
	if err != nil {
		return nil, err
	}
	errs = append(errs, c.expand(lookupEnv)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	c.applyDefaults(rawPresence(raw))
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// DecodeStrict decodes the TOML document data into v and reports every key
// no field of v takes as a *FieldError wrapping ErrUnknownKey, named by its
// path with 0-based array indexes ("source[2].http.sha25"); a key inside an
// unknown table is reported once, at the table. raw is the document as
// generic tables, for callers that must tell a key set to its zero value
// from one left out. err is a TOML syntax error (*SyntaxError, with its line
// and column) or a type error; then raw and unknown are nil. It is the one
// strict TOML reading: the agent's config and agent/template use it.
func DecodeStrict(data []byte, v any) (raw map[string]any, unknown []error, err error) {
	md, err := toml.Decode(string(data), v)
	if err != nil {
		return nil, nil, tomlError(err)
	}
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil, nil, tomlError(err) // unreachable: the same input decoded above
	}
	seen := map[string]bool{}
	for _, k := range md.Undecoded() {
		seen[k.String()] = true
		if len(k) > 1 && seen[k[:len(k)-1].String()] {
			continue // inside an unknown table: reported once, there
		}
		paths := keyPaths(raw, k)
		if len(paths) == 0 {
			paths = []string{k.String()}
		}
		for _, path := range paths {
			unknown = append(unknown, &FieldError{Field: path, Err: ErrUnknownKey})
		}
	}
	return raw, unknown, nil
}

// SyntaxError is a TOML syntax or type error with its position.
type SyntaxError struct {
	Line, Column int
	Err          toml.ParseError
}

func (e *SyntaxError) Error() string {
	msg := e.Err.Message
	if e.Err.LastKey != "" {
		msg = fmt.Sprintf("%s (key %q)", msg, e.Err.LastKey)
	}
	return fmt.Sprintf("toml: line %d, column %d: %s", e.Line, e.Column, msg)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// tomlError gives a toml.ParseError its line and column; other decoding
// errors (type mismatches) already name their line and key.
func tomlError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &SyntaxError{Line: pe.Position.Line, Column: pe.Position.Col, Err: pe}
	}
	return fmt.Errorf("decode toml: %w", err)
}

// keyPaths turns an undecoded key into field paths with array indexes
// ("instance[1].rcon.pasword"), one per array element holding the key.
func keyPaths(node any, key toml.Key) []string {
	if len(key) == 0 {
		return []string{""}
	}
	var out []string
	switch n := node.(type) {
	case map[string]any:
		if child, ok := n[key[0]]; ok {
			for _, rest := range keyPaths(child, key[1:]) {
				out = append(out, joinPath(key[0], rest))
			}
		}
	case []map[string]any:
		for i, el := range n {
			for _, rest := range keyPaths(el, key) {
				out = append(out, joinPath("["+strconv.Itoa(i)+"]", rest))
			}
		}
	case []any:
		for i, el := range n {
			for _, rest := range keyPaths(el, key) {
				out = append(out, joinPath("["+strconv.Itoa(i)+"]", rest))
			}
		}
	}
	return out
}

func joinPath(head, rest string) string {
	switch {
	case rest == "":
		return head
	case rest[0] == '[':
		return head + rest
	}
	return head + "." + rest
}

// presence reports whether the file sets a key: agent keys by name,
// instance keys by index and name. A nil presence means "nothing is set"
// (ApplyDefaults on a hand-built Config).
type presence struct {
	agent     map[string]any
	instances []map[string]any
}

func rawPresence(raw map[string]any) *presence {
	p := &presence{}
	p.agent, _ = raw["agent"].(map[string]any)
	switch in := raw["instance"].(type) {
	case []map[string]any:
		p.instances = in
	case []any:
		for _, el := range in {
			m, _ := el.(map[string]any)
			p.instances = append(p.instances, m)
		}
	}
	return p
}

func (p *presence) agentSet(key string) bool {
	if p == nil {
		return false
	}
	_, ok := p.agent[key]
	return ok
}

func (p *presence) instanceSet(i int, key string) bool {
	if p == nil || i >= len(p.instances) {
		return false
	}
	_, ok := p.instances[i][key]
	return ok
}

// sortedKeys returns m's keys in order, for deterministic walks and errors.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
