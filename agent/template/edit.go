package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxConfigSize bounds a config file Apply edits.
const MaxConfigSize = 4 << 20

// Apply returns content (a game's config file, possibly empty: not yet
// written) with set applied as format says (the keys of docs/templates.md):
// an existing entry's value is replaced in place, keeping the rest of the
// file, its comments and its line endings; a missing one is added.
// properties, ini and line_prefix edit lines; json rewrites the document
// (indented, keys sorted) and yaml its node tree (comments and key order
// kept), both keeping a replaced number's or boolean's type; xml splices
// the element's text into the original bytes.
// A value holding a line break is refused. Keys are applied in sorted
// order, so the result does not depend on map order.
func Apply(format Format, content []byte, set map[string]string) ([]byte, error) {
	if len(content) > MaxConfigSize {
		return nil, fmt.Errorf("config file is %d bytes (at most %d)", len(content), MaxConfigSize)
	}
	for _, k := range sortedKeys(set) {
		if err := CheckEditKey(format, k); err != nil {
			return nil, err
		}
		if strings.ContainsAny(set[k], "\r\n\x00") || !utf8.ValidString(set[k]) {
			return nil, fmt.Errorf("set %q: the value is not UTF-8 or holds a line break or a NUL", k)
		}
		if v := set[k]; (format == FormatProperties || format == FormatINI) && v != strings.TrimLeft(v, " \t") {
			return nil, fmt.Errorf("set %q: the value starts with a blank, which %s readers drop", k, format)
		}
	}
	switch format {
	case FormatProperties, FormatLinePrefix, FormatINI:
		f := splitLines(content)
		for _, k := range sortedKeys(set) {
			switch format {
			case FormatProperties:
				f.setProperty(k, set[k])
			case FormatLinePrefix:
				f.setPrefix(k, set[k])
			default:
				f.setINI(k, set[k])
			}
		}
		return f.bytes(), nil
	case FormatJSON:
		return applyJSON(content, set)
	case FormatYAML:
		return applyYAML(content, set)
	case FormatXML:
		return applyXML(content, set)
	}
	return nil, fmt.Errorf("%q is not a config format", format)
}

var xmlNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9._:-]*$`)

// CheckEditKey says whether key can name an entry of a file of this
// format (docs/templates.md): one line, not empty, and for properties and
// ini a trimmed name without a separator, for json, yaml and xml no empty
// path step. Validate and Apply both use it.
func CheckEditKey(format Format, key string) error {
	bad := func(why string) error { return fmt.Errorf("%q is not a %s key: %s", key, format, why) }
	if key == "" || strings.ContainsAny(key, "\r\n\x00") || !utf8.ValidString(key) {
		return bad("empty, not UTF-8, or holds a line break or a NUL")
	}
	name := key
	switch format {
	case FormatINI:
		if i := strings.LastIndexByte(key, '.'); i >= 0 {
			section := key[:i]
			if section != strings.TrimSpace(section) || strings.ContainsAny(section, "[]") {
				return bad("the section has blanks around it or a bracket")
			}
			name = key[i+1:]
		}
		fallthrough
	case FormatProperties:
		if name == "" || name != strings.TrimSpace(name) || strings.ContainsAny(name, "=:") ||
			strings.ContainsAny(name[:1], "#!;[") {
			return bad("want a name without blanks around it, =, : or a leading comment mark")
		}
	case FormatJSON, FormatYAML:
		if slices.Contains(strings.Split(key, "."), "") {
			return bad("an empty path step")
		}
	case FormatXML:
		for _, step := range strings.Split(key, "/") {
			if !xmlNameRE.MatchString(step) {
				return bad("want element names ([A-Za-z_][A-Za-z0-9._:-]*) separated by /")
			}
		}
	}
	return nil
}

// lineFile is a text file as lines without their endings; eol is the
// file's line ending ("\r\n" when its first line has one).
type lineFile struct {
	lines []string
	eol   string
}

func splitLines(content []byte) *lineFile {
	s := string(content)
	f := &lineFile{eol: "\n"}
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		f.eol = "\r\n"
	}
	if s == "" {
		return f
	}
	s = strings.TrimSuffix(s, "\n")
	for _, l := range strings.Split(s, "\n") {
		f.lines = append(f.lines, strings.TrimSuffix(l, "\r"))
	}
	return f
}

func (f *lineFile) bytes() []byte {
	if len(f.lines) == 0 {
		return nil
	}
	return []byte(strings.Join(f.lines, f.eol) + f.eol) // a file Apply wrote ends with a line ending
}

// insert puts line at index i.
func (f *lineFile) insert(i int, line string) {
	f.lines = append(f.lines, "")
	copy(f.lines[i+1:], f.lines[i:])
	f.lines[i] = line
}

// setPrefix: the first line starting with prefix becomes prefix+value.
func (f *lineFile) setPrefix(prefix, value string) {
	for i, l := range f.lines {
		if strings.HasPrefix(l, prefix) {
			f.lines[i] = prefix + value
			return
		}
	}
	f.lines = append(f.lines, prefix+value)
}

// keyValue splits "key = value" (or "key: value", properties only) into
// the part kept (the key, the separator and the blanks after it) and the
// key; ok is false for a comment, a blank line or a section header.
func keyValue(line string, colon bool) (keep, key string, ok bool) {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "!") || strings.HasPrefix(t, ";") ||
		strings.HasPrefix(t, "[") {
		return "", "", false
	}
	seps := "="
	if colon {
		seps = "=:"
	}
	i := strings.IndexAny(line, seps)
	if i < 0 {
		return "", "", false
	}
	keep = line[:i+1]
	if i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t') {
		keep += " " // the file's style: one blank after the separator
	}
	return keep, strings.TrimSpace(line[:i]), true
}

func (f *lineFile) setProperty(key, value string) {
	for i, l := range f.lines {
		if keep, k, ok := keyValue(l, true); ok && k == key {
			f.lines[i] = keep + value
			return
		}
	}
	f.lines = append(f.lines, key+"="+value)
}

// setINI: key is "Section.Key" (split at the last dot: section names may
// hold dots, as Unreal's do) or "Key", before any section. A missing entry
// goes after the section's last non-blank line; a missing section is
// appended.
func (f *lineFile) setINI(key, value string) {
	section, name := "", key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		section, name = key[:i], key[i+1:]
	}
	cur, at := "", -1
	if section == "" {
		at = 0
	}
	for i, l := range f.lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			cur = t[1 : len(t)-1]
			if cur == section {
				at = i + 1
			}
			continue
		}
		if cur != section {
			continue
		}
		if keep, k, ok := keyValue(l, false); ok && k == name {
			f.lines[i] = keep + value
			return
		}
		if t != "" {
			at = i + 1
		}
	}
	if at >= 0 {
		f.insert(at, name+"="+value)
		return
	}
	if len(f.lines) > 0 && strings.TrimSpace(f.lines[len(f.lines)-1]) != "" {
		f.lines = append(f.lines, "")
	}
	f.lines = append(f.lines, "["+section+"]", name+"="+value)
}

// applyJSON sets dotted paths in a JSON object document.
func applyJSON(content []byte, set map[string]string) ([]byte, error) {
	root := map[string]any{}
	if len(bytes.TrimSpace(content)) > 0 {
		d := json.NewDecoder(bytes.NewReader(content))
		d.UseNumber()
		if err := d.Decode(&root); err != nil {
			return nil, fmt.Errorf("json config: %w", err)
		}
		if _, err := d.Token(); err != io.EOF {
			return nil, errors.New("json config: data after the document")
		}
		if root == nil {
			return nil, errors.New("json config: not an object")
		}
	}
	for _, k := range sortedKeys(set) {
		if err := setJSON(root, k, set[k]); err != nil {
			return nil, err
		}
	}
	out, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("json config: %w", err)
	}
	return append(out, '\n'), nil
}

func setJSON(root map[string]any, key, value string) error {
	parts := strings.Split(key, ".")
	obj := root
	for i, p := range parts[:len(parts)-1] {
		next, ok := obj[p]
		if !ok {
			m := map[string]any{}
			obj[p], obj = m, m
			continue
		}
		m, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("set %q: %s is not an object", key, strings.Join(parts[:i+1], "."))
		}
		obj = m
	}
	last := parts[len(parts)-1]
	switch obj[last].(type) {
	case json.Number:
		if n := json.Number(value); json.Valid([]byte(value)) && isNumber(n) {
			obj[last] = n
			return nil
		}
		return fmt.Errorf("set %q: the file holds a number here, and %q is not one", key, value)
	case bool:
		if value == "true" || value == "false" {
			obj[last] = value == "true"
			return nil
		}
		return fmt.Errorf("set %q: the file holds a boolean here, and %q is not one", key, value)
	case map[string]any, []any:
		return fmt.Errorf("set %q: the file holds an object or a list here", key)
	}
	obj[last] = value
	return nil
}

func isNumber(n json.Number) bool {
	_, err := n.Float64()
	return err == nil
}
