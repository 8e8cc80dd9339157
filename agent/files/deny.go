package files

import (
	"fmt"
	"path"
	"strings"
)

// denylist is a compiled list of gitignore patterns, matched against slash
// paths relative to the instance root as if the list were a .gitignore at
// the root. It is immutable after compileDeny.
//
// Supported: blank lines and "#" comments, trailing-space trimming (a
// backslash keeps one), "\#" and "\!" escapes, "!" negation (the last
// matching pattern wins), "*", "?", "[...]" classes (also "[!...]"), "**" as
// a whole name ("**/x", "x/**", "a/**/b"), a leading or middle "/" anchoring
// the pattern at the root, a trailing "/" matching directories only. As in
// git, a path inside a denied directory is denied whatever follows: a "!"
// pattern cannot re-include it.
type denylist struct {
	rules []denyRule
}

type denyRule struct {
	segs    []string // path.Match patterns, "**" for any number of names
	negate  bool
	dirOnly bool
}

const doubleStar = "**"

// compileDeny compiles patterns; a pattern that does not compile is an
// error naming it.
func compileDeny(patterns []string) (*denylist, error) {
	d := &denylist{}
	for _, p := range patterns {
		rule, ok, err := compileRule(p)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrBadDenyPattern, p, err)
		}
		if ok {
			d.rules = append(d.rules, rule)
		}
	}
	return d, nil
}

func compileRule(p string) (denyRule, bool, error) {
	var r denyRule
	p = trimTrailingSpaces(p)
	if p == "" || p[0] == '#' {
		return r, false, nil
	}
	switch {
	case p[0] == '!':
		r.negate, p = true, p[1:]
	case strings.HasPrefix(p, `\!`), strings.HasPrefix(p, `\#`):
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly = true
		p = strings.TrimRight(p, "/")
	}
	anchored := strings.Contains(p, "/")
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return r, false, nil
	}
	if !anchored {
		r.segs = append(r.segs, doubleStar)
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" {
			continue
		}
		if s != doubleStar {
			s = strings.ReplaceAll(s, "[!", "[^")
			if _, err := path.Match(s, "x"); err != nil {
				return r, false, err
			}
		}
		r.segs = append(r.segs, s)
	}
	return r, true, nil
}

// trimTrailingSpaces drops trailing spaces not escaped with a backslash.
func trimTrailingSpaces(p string) string {
	for strings.HasSuffix(p, " ") && !strings.HasSuffix(p, `\ `) {
		p = p[:len(p)-1]
	}
	if strings.HasSuffix(p, `\ `) {
		p = p[:len(p)-2] + " "
	}
	return p
}

// empty reports whether nothing can be denied.
func (d *denylist) empty() bool { return d == nil || len(d.rules) == 0 }

// Denied reports whether rel (slash path from the root, "" for the root
// itself, which is never denied) is denied, isDir saying whether it is a
// directory. Every ancestor is checked first, as a directory.
func (d *denylist) Denied(rel string, isDir bool) bool {
	if d.empty() || rel == "" {
		return false
	}
	names := strings.Split(rel, "/")
	for i := 1; i < len(names); i++ {
		if d.excluded(names[:i], true) {
			return true
		}
	}
	return d.excluded(names, isDir)
}

// excluded applies the rules to one path, last match winning.
func (d *denylist) excluded(names []string, isDir bool) bool {
	for i := len(d.rules) - 1; i >= 0; i-- {
		r := d.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if matchSegs(r.segs, names) {
			return !r.negate
		}
	}
	return false
}

// matchSegs matches names against pattern segments; "**" matches zero or
// more names, except as the last segment, where it matches one or more.
func matchSegs(segs, names []string) bool {
	for len(segs) > 0 {
		if segs[0] == doubleStar {
			if len(segs) == 1 {
				return len(names) > 0
			}
			for i := 0; i <= len(names); i++ {
				if matchSegs(segs[1:], names[i:]) {
					return true
				}
			}
			return false
		}
		if len(names) == 0 {
			return false
		}
		if ok, _ := path.Match(segs[0], names[0]); !ok {
			return false
		}
		segs, names = segs[1:], names[1:]
	}
	return len(names) == 0
}
