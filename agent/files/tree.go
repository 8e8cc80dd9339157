package files

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
)

type fromToArgs struct {
	From *string `json:"from"`
	To   *string `json:"to"`
}

// sortInfos sorts directory entries by name.
func sortInfos(infos []fs.FileInfo) {
	slices.SortFunc(infos, func(a, b fs.FileInfo) int { return strings.Compare(a.Name(), b.Name()) })
}

// walk calls fn for rel (described by fi) and, for a directory, for
// everything below it, parents before children, names in order. It never
// follows symlinks. fn returning errSkip skips a directory's contents.
func walk(ctx context.Context, r *os.Root, rel string, fi fs.FileInfo, fn func(rel string, fi fs.FileInfo) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := fn(rel, fi)
	if err == errSkip {
		return nil
	}
	if err != nil || !fi.IsDir() {
		return err
	}
	f, err := r.Open(osPath(rel))
	if err != nil {
		return err
	}
	infos, err := f.Readdir(-1)
	f.Close()
	if err != nil {
		return err
	}
	sortInfos(infos)
	for _, sub := range infos {
		if err := walk(ctx, r, joinRel(rel, sub.Name()), sub, fn); err != nil {
			return err
		}
	}
	return nil
}

// errSkip tells walk not to descend.
var errSkip = fs.SkipDir

// below rebases p, a path at or under from, onto to.
func below(p, from, to string) string {
	if p == from {
		return to
	}
	return joinRel(to, strings.TrimPrefix(p, from+"/"))
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// treeDenied refuses a tree (at resolved path res, named rel by the
// client) holding any denied path, and, when dst is not nil, one whose
// copy at *dst would hold a denied path.
func (c *call) treeDenied(rel string, res resolved, dst *string) error {
	if c.m.deny.empty() || !res.info.IsDir() {
		return nil
	}
	return walk(c.ctx, c.r, res.rel, res.info, func(p string, fi fs.FileInfo) error {
		orig := below(p, res.rel, rel)
		if c.denied(fi.IsDir(), orig, p) {
			return wire.Errorf(CodeDenied, "%q holds %q, which is denied by the instance's file policy", rel, orig)
		}
		if dst != nil && c.denied(fi.IsDir(), below(p, res.rel, *dst)) {
			return wire.Errorf(CodeDenied, "%q would be denied by the instance's file policy", below(p, res.rel, *dst))
		}
		return nil
	})
}

// fromTo resolves fm_rename's and fm_copy's ends: from must exist (looked
// up as fromLk says), to must not, and must not lie in from.
func (c *call) fromTo(a fromToArgs, fromLk lookup) (string, resolved, string, resolved, error) {
	fromRel, from, err := c.arg("from", a.From, fromLk)
	if err != nil {
		return "", resolved{}, "", resolved{}, err
	}
	if fromRel == "" || from.rel == "" {
		return "", resolved{}, "", resolved{}, wire.Errorf(CodeInvalidPath, "refusing to move or copy the instance root")
	}
	toRel, to, err := c.arg("to", a.To, lookup{missing: true, dirIfNew: from.info.IsDir()})
	if err != nil {
		return "", resolved{}, "", resolved{}, err
	}
	switch {
	case to.info != nil:
		return "", resolved{}, "", resolved{}, wire.Errorf(CodeExists, "%q already exists", toRel)
	case within(to.rel, from.rel):
		return "", resolved{}, "", resolved{}, wire.Errorf(CodeInvalidPath, "cannot put %q inside itself (%q)", fromRel, toRel)
	}
	if err := c.treeDenied(fromRel, from, &to.rel); err != nil {
		return "", resolved{}, "", resolved{}, err
	}
	return fromRel, from, toRel, to, nil
}

// rename moves from to to (a symlink is moved itself, not its target). The
// target must not exist; its parent must.
func (c *call) rename(a fromToArgs) (any, error) {
	fromRel, from, toRel, to, err := c.fromTo(a, lookup{})
	if err != nil {
		return nil, err
	}
	if err := c.r.Rename(from.rel, to.rel); err != nil {
		return nil, mapErr("rename", fromRel, err)
	}
	c.m.log.Info("renamed", "from", fromRel, "to", toRel)
	return struct{}{}, nil
}

// delete removes a file, a symlink (not its target) or a directory tree.
// A tree holding a denied path is refused whole.
func (c *call) delete(a pathArgs) (any, error) {
	rel, res, err := c.arg("path", a.Path, lookup{})
	if err != nil {
		return nil, err
	}
	if rel == "" || res.rel == "" {
		return nil, wire.Errorf(CodeInvalidPath, "refusing to delete the instance root")
	}
	if err := c.treeDenied(rel, res, nil); err != nil {
		return nil, err
	}
	if err := c.r.RemoveAll(res.rel); err != nil {
		return nil, mapErr("delete", rel, err)
	}
	c.m.log.Info("deleted", "path", rel)
	return struct{}{}, nil
}

// copyNode is one thing fm_copy creates.
type copyNode struct {
	src, dst string
	info     fs.FileInfo
	target   string // symlink target
}

// copy copies a file or a directory tree (following a symlink at from).
// Inside a tree, symlinks are recreated with the same target, which must
// stay inside the root from the new place, and special files are skipped;
// from itself must be a directory or a regular file. Hard-linked files are
// refused (contentFile). Everything is checked before anything is written.
// Copies get the source's permission bits only and belong to the agent.
func (c *call) copy(a fromToArgs) (any, error) {
	fromRel, from, toRel, to, err := c.fromTo(a, lookup{follow: true})
	if err != nil {
		return nil, err
	}
	if !from.info.IsDir() {
		if err := c.contentFile(fromRel, from.info); err != nil {
			return nil, err
		}
	}
	plan, err := c.planCopy(fromRel, from, to.rel)
	if err != nil {
		return nil, err
	}
	for _, n := range plan {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		if err := c.copyOne(n); err != nil {
			return nil, mapErr("copy", below(n.src, from.rel, fromRel), err)
		}
	}
	c.m.log.Info("copied", "from", fromRel, "to", toRel, "entries", len(plan))
	return struct{}{}, nil
}

func (c *call) planCopy(fromRel string, from resolved, to string) ([]copyNode, error) {
	var plan []copyNode
	err := walk(c.ctx, c.r, from.rel, from.info, func(p string, fi fs.FileInfo) error {
		n := copyNode{src: p, dst: below(p, from.rel, to), info: fi}
		switch {
		case fi.IsDir():
		case fi.Mode().IsRegular():
			if err := c.contentFile(below(p, from.rel, fromRel), fi); err != nil {
				return err
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := c.r.Readlink(p)
			if err != nil {
				return mapErr("copy", below(p, from.rel, fromRel), err)
			}
			if !linkStaysInside(parentRel(n.dst), t) {
				return wire.Errorf(CodeOutsideRoot, "copy %q: symlink to %q would point outside the instance root", below(p, from.rel, fromRel), t)
			}
			n.target = t
		default:
			return nil
		}
		plan = append(plan, n)
		return nil
	})
	return plan, err
}

// linkStaysInside reports whether a symlink in dir (a clean path from the
// root) with this target resolves, lexically, inside the root.
func linkStaysInside(dir, target string) bool {
	t := strings.ReplaceAll(target, "\\", "/")
	if t == "" || path.IsAbs(t) || (runtime.GOOS == "windows" && strings.IndexByte(t, ':') >= 0) {
		return false
	}
	j := path.Join(dir, t)
	return j != ".." && !strings.HasPrefix(j, "../")
}

func (c *call) copyOne(n copyNode) error {
	switch {
	case n.info.IsDir():
		if err := c.r.Mkdir(n.dst, n.info.Mode().Perm()); err != nil {
			return err
		}
		return ownDir(c.r, n.dst)
	case n.target != "":
		return c.r.Symlink(n.target, n.dst)
	}
	src, fi, err := c.openContent(n.src, n.src)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := c.r.OpenFile(n.dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		err = ownFile(dst)
	}
	if err == nil {
		err = dst.Chmod(fi.Mode().Perm())
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}
