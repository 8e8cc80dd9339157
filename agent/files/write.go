package files

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
)

// SaveReply is fm_save's reply.
type SaveReply struct {
	Size int64 `json:"size"` // bytes written
}

// MkdirReply is fm_mkdir's reply; Created is false when the directory
// already existed.
type MkdirReply struct {
	Created bool `json:"created"`
}

// Default modes of what the file manager creates (before the umask).
// Whatever it creates or rewrites gets permission bits only (never
// setuid, setgid or sticky) and belongs to the agent process.
const (
	newFileMode fs.FileMode = 0o644
	newDirMode  fs.FileMode = 0o755
)

type saveArgs struct {
	Path     *string `json:"path"`
	Content  *string `json:"content"`
	Encoding string  `json:"encoding"`
	Create   bool    `json:"create"` // a new file only: an existing path is CodeExists
}

// save writes a whole file through a temporary file in the same directory
// renamed over the target, so readers see the old or the new content. It
// follows a symlink at the target (inside the root), keeps an existing
// file's permission bits (not setuid, setgid, sticky, nor its owner: the
// new file is the agent's), and needs the parent directory to exist. A
// hard-linked target is detached from its other links, which keep the old
// content. With create set, an existing target is refused (CodeExists).
func (c *call) save(a saveArgs) (any, error) {
	if a.Content == nil {
		return nil, missingArg("content")
	}
	data, err := c.saveContent(a)
	if err != nil {
		return nil, err
	}
	rel, res, err := c.arg("path", a.Path, lookup{follow: true, missing: true})
	if err != nil {
		return nil, err
	}
	if rel == "" {
		return nil, wire.Errorf(CodeIsADirectory, "save %q: the instance root is a directory", rel)
	}
	if a.Create && res.info != nil {
		return nil, wire.Errorf(CodeExists, "save %q: it already exists", rel)
	}
	mode := newFileMode
	if res.info != nil {
		if err := regularFile(rel, res.info); err != nil {
			return nil, err
		}
		mode = res.info.Mode().Perm()
	}
	n, err := writeAtomic(c.r, res.rel, newContent{src: bytes.NewReader(data), max: int64(len(data)), mode: mode, sync: true})
	if err != nil {
		return nil, mapErr("save", rel, err)
	}
	c.m.log.Info("file saved", "path", rel, "bytes", n)
	return SaveReply{Size: n}, nil
}

// saveContent decodes fm_save's content and checks it against SaveMax.
func (c *call) saveContent(a saveArgs) ([]byte, error) {
	max := c.m.limits.SaveMax
	var data []byte
	switch a.Encoding {
	case "", EncodingUTF8:
		data = []byte(*a.Content)
	case EncodingBase64:
		if int64(base64.StdEncoding.DecodedLen(len(*a.Content))) > max+2 {
			return nil, wire.Errorf(CodeTooLarge, "save: content is more than the %d-byte save limit", max)
		}
		b, err := base64.StdEncoding.DecodeString(*a.Content)
		if err != nil {
			return nil, badArgs("save: content is not valid base64: %v", err)
		}
		data = b
	default:
		return nil, badArgs("save: unknown encoding %q (want %q or %q)", a.Encoding, EncodingUTF8, EncodingBase64)
	}
	if int64(len(data)) > max {
		return nil, wire.Errorf(CodeTooLarge, "save: content is %d bytes, more than the %d-byte save limit", len(data), max)
	}
	return data, nil
}

// errTooLarge marks content over a writer's limit.
var errTooLarge = errors.New("content over the size limit")

// newContent is what writeAtomic writes.
type newContent struct {
	src  io.Reader
	max  int64       // bytes at most, else errTooLarge
	mode fs.FileMode // only its permission bits are applied
	sync bool        // fsync before the rename
}

// writeAtomic writes nc.src to a new temporary file beside rel, owned by
// the agent process (ownFile) with nc.mode's permission bits, optionally
// syncs it, and renames it over rel. O_EXCL means the temporary file is
// never a symlink; the rename replaces rel itself, never what rel may
// point to, so no setuid bit or owner of an old file survives. On error
// the temporary file is removed.
func writeAtomic(r *os.Root, rel string, nc newContent) (int64, error) {
	tmp := joinRel(parentRel(rel), tempName())
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, io.LimitReader(nc.src, nc.max+1))
	if err == nil && n > nc.max {
		err = errTooLarge
	}
	if err == nil {
		err = ownFile(f) // before chmod: chown clears setuid bits
	}
	if err == nil {
		err = f.Chmod(nc.mode.Perm())
	}
	if err == nil && nc.sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, rel)
	}
	if err != nil {
		_ = r.Remove(tmp)
		return 0, err
	}
	return n, nil
}

// tempPrefix starts the names of the file manager's temporary files.
const tempPrefix = ".corrosion-"

func tempName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return tempPrefix + hex.EncodeToString(b[:]) + ".tmp"
}

// mkdir creates a directory and its missing parents (following symlinks
// inside the root); an existing directory is success with created false.
func (c *call) mkdir(a pathArgs) (any, error) {
	rel, res, err := c.arg("path", a.Path, lookup{follow: true, missing: true, dirIfNew: true})
	if err != nil {
		return nil, err
	}
	if res.info != nil {
		if res.info.IsDir() {
			return MkdirReply{Created: false}, nil
		}
		return nil, wire.Errorf(CodeExists, "mkdir %q: a file of that name exists", rel)
	}
	if err := mkdirAll(c.r, res.rel); err != nil {
		return nil, mapErr("mkdir", rel, err)
	}
	c.m.log.Info("directory created", "path", rel)
	return MkdirReply{Created: true}, nil
}

// mkdirAll creates rel and its missing parents, one name at a time inside
// the root; each new directory belongs to the agent process, without the
// set-group-ID bit a parent may hand down (ownDir).
func mkdirAll(r *os.Root, rel string) error {
	names := splitRel(rel)
	for i := range names {
		p := joinRel(names[:i+1]...)
		err := r.Mkdir(p, newDirMode)
		if err == nil {
			if err := ownDir(r, p); err != nil {
				return err
			}
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err := r.Stat(p)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: p, Err: errNotDir}
		}
	}
	return nil
}

type chmodArgs struct {
	Path *string `json:"path"`
	Mode *string `json:"mode"`
}

// chmod sets permission bits (0000-0777 in octal; setuid, setgid and
// sticky are refused) on a file or directory, never through a symlink.
func (c *call) chmod(a chmodArgs) (any, error) {
	if a.Mode == nil {
		return nil, missingArg("mode")
	}
	mode, err := parseMode(*a.Mode)
	if err != nil {
		return nil, err
	}
	rel, res, err := c.arg("path", a.Path, lookup{})
	if err != nil {
		return nil, err
	}
	switch {
	case rel == "":
		return nil, wire.Errorf(CodeInvalidPath, "chmod: refusing to change the instance root")
	case res.info.Mode()&fs.ModeSymlink != 0:
		return nil, wire.Errorf(CodeIsASymlink, "chmod %q: is a symlink; symlinks are never followed", rel)
	case !res.info.IsDir() && !res.info.Mode().IsRegular():
		return nil, wire.Errorf(CodeNotAFile, "chmod %q: not a regular file or directory", rel)
	}
	if n, ok := linked(res.info); ok {
		return nil, errChmodLinked(rel, n)
	}
	if err := chmodNoFollow(c.r, res.rel, mode); err != nil {
		return nil, mapErr("chmod", rel, err)
	}
	c.m.log.Info("mode changed", "path", rel, "mode", modeString(mode))
	return struct{}{}, nil
}

// parseMode parses an octal permission string: "0644", "644" or "0o644".
func parseMode(s string) (fs.FileMode, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(s, "0o"), "0O")
	v, err := strconv.ParseUint(t, 8, 32)
	switch {
	case err != nil || t == "":
		return 0, badArgs("mode %q is not an octal number like \"0644\"", s)
	case v > 0o777:
		return 0, badArgs("mode %q: only permission bits (0000-0777) may be set", s)
	}
	return fs.FileMode(v), nil
}
