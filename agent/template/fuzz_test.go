package template

import (
	"io/fs"
	"strings"
	"testing"
)

// FuzzParse: no input panics or stalls Parse; what parses validates, and
// renders (or is refused) without panicking, and every problem is a
// *FieldError or a TOML error. Seed corpus: the built-ins and base.
func FuzzParse(f *testing.F) {
	names, err := fs.Glob(builtinFS, "builtin/*.toml")
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range names {
		data, err := builtinFS.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(base))
	f.Add([]byte(strings.Replace(base, `"{{PASS}}"`, `"{{PASS"`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if err := tp.Validate(); err != nil {
			t.Fatalf("parsed but does not validate: %v", err)
		}
		vals := map[string]string{}
		for _, v := range tp.Variables {
			if v.Default == "" && len(v.Options) > 0 {
				vals[v.Key] = v.Options[0]
			}
		}
		s, err := Render(&tp, vals)
		if err == nil {
			_ = s.String()
		}
	})
}

// FuzzExpand: expand never panics, and what References accepts expands
// with every key known.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "{{A}}", "x{{A}}y", "{{", "}}", "{{a}}", "{{A}}}}", "{{{{A}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		keys, err := References(s)
		if err != nil {
			return
		}
		out, err := expand(s, func(string) (string, bool) { return "v", true })
		if err != nil {
			t.Fatalf("References accepted %q but expand refused: %v", s, err)
		}
		if len(keys) == 0 && out != s {
			t.Fatalf("no references in %q but expand changed it to %q", s, out)
		}
	})
}
