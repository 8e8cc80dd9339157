package template

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed builtin/*.toml
var builtinFS embed.FS

// Builtins parses the embedded built-in templates (builtin/*.toml, one per
// game) and returns them sorted by id. A built-in that does not parse is a
// bug caught by the package's tests; it is reported, never skipped.
func Builtins() ([]Template, error) {
	names, err := fs.Glob(builtinFS, "builtin/*.toml")
	if err != nil {
		return nil, fmt.Errorf("list built-in templates: %w", err)
	}
	out := make([]Template, 0, len(names))
	for _, name := range names {
		data, err := builtinFS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read built-in template %s: %w", name, err)
		}
		t, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("built-in template %s: %w", name, err)
		}
		if want := strings.TrimSuffix(path.Base(name), ".toml"); t.ID != want {
			return nil, fmt.Errorf("built-in template %s: id %q (want %q, its file name)", name, t.ID, want)
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// BuiltinSource returns the TOML text of the built-in template id, for
// showing and copying; ok is false when there is none.
func BuiltinSource(id string) (data []byte, ok bool) {
	if !idRE.MatchString(id) {
		return nil, false
	}
	data, err := builtinFS.ReadFile("builtin/" + id + ".toml")
	return data, err == nil
}
