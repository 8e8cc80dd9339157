package files

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
)

// Path limits: a whole request path and one name in it.
const (
	maxPathLen = 4096
	maxNameLen = 255
	// maxSymlinks bounds the symlinks followed while resolving one path,
	// the same bound os.Root uses.
	maxSymlinks = 8
)

// cleanPath checks a request path and returns it in canonical form:
// slash-separated, relative to the instance root, no "." or empty names, ""
// for the root itself. Leading slashes are taken as root-relative (the
// instance root is "/" to the client). ".." anywhere is refused as
// outside_root, whatever it would resolve to; NUL, backslashes, overlong
// paths or names (and on Windows drive letters and reserved names) are
// invalid_path.
func cleanPath(p string) (string, error) {
	switch {
	case len(p) > maxPathLen:
		return "", wire.Errorf(CodeInvalidPath, "path is %d bytes, more than %d", len(p), maxPathLen)
	case strings.IndexByte(p, 0) >= 0:
		return "", wire.Errorf(CodeInvalidPath, "path %q contains a NUL byte", p)
	case strings.IndexByte(p, '\\') >= 0:
		return "", wire.Errorf(CodeInvalidPath, "path %q contains a backslash; use /", p)
	}
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, c := range parts {
		switch {
		case c == "" || c == ".":
			continue
		case c == "..":
			return "", wire.Errorf(CodeOutsideRoot, "path %q contains \"..\"", p)
		case len(c) > maxNameLen:
			return "", wire.Errorf(CodeInvalidPath, "name in path %q is longer than %d bytes", p, maxNameLen)
		}
		out = append(out, c)
	}
	rel := strings.Join(out, "/")
	if rel != "" && runtime.GOOS == "windows" {
		if strings.IndexByte(rel, ':') >= 0 || !filepath.IsLocal(filepath.FromSlash(rel)) {
			return "", wire.Errorf(CodeInvalidPath, "path %q is not a plain relative path", p)
		}
	}
	return rel, nil
}

// osPath is rel as os.Root wants it: "." for the root.
func osPath(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// joinRel joins slash paths where "" is the root.
func joinRel(elem ...string) string {
	var b []string
	for _, e := range elem {
		if e != "" {
			b = append(b, e)
		}
	}
	return strings.Join(b, "/")
}

// parentRel is the directory holding rel ("" for top-level names).
func parentRel(rel string) string {
	d := path.Dir(rel)
	if d == "." {
		return ""
	}
	return d
}

// resolved is a request path after resolving its symlinks inside the root.
type resolved struct {
	rel  string      // slash path from the root, free of symlinks as of resolution
	info fs.FileInfo // Lstat of rel; nil when it does not exist
}

// resolve walks rel one name at a time with Lstat inside r and replaces
// each symlink by its target, so that the deny policy sees the real path and
// the operation gets a path without symlinks. Absolute targets and targets
// climbing above the root are outside_root. The last name is followed only
// if lk.follow. A missing path is not_found unless lk.missing, in which
// case the unresolved rest is appended and info is nil.
//
// Resolution is a check, not the jail: the operation that follows goes
// through os.Root, which refuses to leave the root even if the tree changes
// in between.
func resolve(r *os.Root, rel string, lk lookup) (resolved, error) {
	todo := splitRel(rel)
	var done []string
	var info fs.FileInfo // Lstat of done while it is current
	hops := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		if c == ".." {
			if len(done) == 0 {
				return resolved{}, errOutside(rel)
			}
			done, info = done[:len(done)-1], nil
			continue
		}
		cand := joinRel(append(done, c)...)
		fi, err := r.Lstat(cand)
		if errors.Is(err, fs.ErrNotExist) && lk.missing && !containsDotDot(todo) {
			return resolved{rel: joinRel(cand, joinRel(todo...))}, nil
		}
		if err != nil {
			return resolved{}, mapErr("resolve", rel, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 && (len(todo) > 0 || lk.follow) {
			if hops++; hops > maxSymlinks {
				return resolved{}, wire.Errorf(CodeInvalidPath, "path %q: too many levels of symbolic links", rel)
			}
			target, err := r.Readlink(cand)
			if err != nil {
				return resolved{}, mapErr("resolve", rel, err)
			}
			target = filepath.ToSlash(target)
			if path.IsAbs(target) || filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
				return resolved{}, errOutside(rel)
			}
			todo = append(splitRel(target), todo...)
			continue
		}
		if len(todo) > 0 && !fi.IsDir() {
			return resolved{}, wire.Errorf(CodeNotADirectory, "path %q: %q is not a directory", rel, cand)
		}
		done, info = append(done, c), fi
	}
	out := joinRel(done...)
	if info == nil {
		fi, err := r.Lstat(osPath(out))
		if err != nil {
			return resolved{}, mapErr("resolve", rel, err)
		}
		info = fi
	}
	return resolved{rel: out, info: info}, nil
}

// splitRel splits a slash path into names, dropping empty and "." names.
func splitRel(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func containsDotDot(names []string) bool {
	for _, n := range names {
		if n == ".." {
			return true
		}
	}
	return false
}
