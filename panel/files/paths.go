package files

import (
	"net/http"
	"path"
	"strings"

	"github.com/corrosion/corrosion/panel/httpx"
)

// MaxPathBytes is the longest path the agent's jail takes.
const MaxPathBytes = 4096

// CleanPath checks a path an operator sent before it goes to the agent
// (whose jail is the security boundary: this only refuses what can never
// work, early and in words) and returns it canonical: relative to the
// instance root, slash-separated, no leading or trailing slash, "" for the
// root itself.
func CleanPath(p string) (string, error) {
	switch {
	case len(p) > MaxPathBytes:
		return "", httpx.Errorf(http.StatusBadRequest, "the path is %d bytes long; at most %d are allowed", len(p), MaxPathBytes)
	case !httpx.ValidText(p):
		// Bytes that are not UTF-8 would reach the agent as U+FFFD (JSON):
		// another name than the operator's.
		return "", httpx.Errorf(http.StatusBadRequest, "the path %s", httpx.NotText)
	case strings.ContainsRune(p, '\\'):
		return "", httpx.Errorf(http.StatusBadRequest, "use / between folders, not \\")
	}
	var parts []string
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return "", httpx.Errorf(http.StatusBadRequest, "paths cannot go up with \"..\"; every path is inside the instance's root")
		}
		if strings.IndexFunc(s, isControl) >= 0 {
			return "", httpx.Errorf(http.StatusBadRequest, "the name %q holds a control character", s)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "/"), nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// cleanTarget is CleanPath for a path an operation acts on: the root
// itself is refused with what.
func cleanTarget(p, what string) (string, error) {
	c, err := CleanPath(p)
	if err != nil {
		return "", err
	}
	if c == "" {
		return "", httpx.Errorf(http.StatusBadRequest, "%s: name a file or folder, not the root", what)
	}
	return c, nil
}

// parent is the folder holding a canonical path ("" for the root).
func parent(p string) string {
	d := path.Dir(p)
	if d == "." || d == "/" {
		return ""
	}
	return d
}

// join joins a canonical folder and a name.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// display is a canonical path as the operator reads it: "/" for the root,
// else with a leading slash.
func display(p string) string { return "/" + p }
