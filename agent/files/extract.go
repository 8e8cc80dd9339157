package files

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
)

// ExtractReply is fm_extract's reply.
type ExtractReply struct {
	Entries int   `json:"entries"` // files and directories extracted
	Size    int64 `json:"size"`    // bytes written
}

type extractArgs struct {
	Path *string `json:"path"`
	To   *string `json:"to"`
}

// archEntry is one entry of an archive being read.
type archEntry struct {
	name  string
	isDir bool
	mode  fs.FileMode // permission bits
	size  int64
	open  func() (io.Reader, error) // valid during the callback only
}

// archiveReader iterates an archive's entries; each call starts over.
type archiveReader interface {
	each(fn func(e archEntry) error) error
}

// plannedEntry is a checked entry: where it goes, as resolved.
type plannedEntry struct {
	name   string
	target string // resolved path from the root
}

// extract unpacks a zip or tar.gz archive into to (created with parents
// if missing). The whole archive is checked first, and nothing is written
// if any entry is refused: names that are absolute or hold "..", NUL or
// backslashes, links and special files, entries denied at their target,
// more than ExtractMaxEntries entries or ExtractMaxBytes bytes. Existing
// files are replaced (through a temporary file and a rename, so never
// written through a symlink); a file cannot replace a directory.
func (c *call) extract(a extractArgs) (any, error) {
	rel, src, err := c.arg("path", a.Path, lookup{follow: true})
	if err != nil {
		return nil, err
	}
	if err := c.contentFile(rel, src.info); err != nil {
		return nil, err
	}
	format, err := formatOf(rel)
	if err != nil {
		return nil, err
	}
	toRel, to, err := c.arg("to", a.To, lookup{follow: true, missing: true, dirIfNew: true})
	if err != nil {
		return nil, err
	}
	if to.info != nil && !to.info.IsDir() {
		return nil, wire.Errorf(CodeNotADirectory, "extract into %q: not a directory", toRel)
	}
	f, fi, err := c.openContent(src.rel, rel)
	if err != nil {
		return nil, mapErr("extract", rel, err)
	}
	defer f.Close()
	ar, err := c.openArchive(format, f, fi.Size(), rel)
	if err != nil {
		return nil, err
	}
	plan, err := c.planExtract(ar, toRel, to.rel)
	if err != nil {
		return nil, err
	}
	reply, err := c.runExtract(ar, plan, to.rel)
	if err != nil {
		return nil, mapErr("extract", rel, err)
	}
	c.m.log.Info("archive extracted", "path", rel, "to", toRel, "entries", reply.Entries, "bytes", reply.Size)
	return reply, nil
}

// openArchive reads the archive f (size bytes, named rel by the client).
func (c *call) openArchive(format string, f *os.File, size int64, rel string) (archiveReader, error) {
	if format == formatTarGz {
		slack := int64(c.m.limits.ExtractMaxEntries)*2048 + 64<<20
		return &tarGzReader{f: f, maxRead: c.m.limits.ExtractMaxBytes + slack, rel: rel}, nil
	}
	zr, err := zip.NewReader(f, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, wire.Errorf(CodeInvalidArch, "extract %q: not a valid zip archive: %v", rel, err)
	}
	if len(zr.File) > c.m.limits.ExtractMaxEntries {
		return nil, wire.Errorf(CodeTooLarge, "extract %q: %d entries, more than the limit of %d", rel, len(zr.File), c.m.limits.ExtractMaxEntries)
	}
	return zipReader{zr}, nil
}

// planExtract checks every entry before anything is written.
func (c *call) planExtract(ar archiveReader, toRel, to string) ([]plannedEntry, error) {
	var plan []plannedEntry
	var total int64
	kinds := map[string]bool{} // target name -> is a directory
	err := ar.each(func(e archEntry) error {
		if len(plan) >= c.m.limits.ExtractMaxEntries {
			return wire.Errorf(CodeTooLarge, "archive has more than the limit of %d entries", c.m.limits.ExtractMaxEntries)
		}
		if total += e.size; e.size < 0 || total > c.m.limits.ExtractMaxBytes {
			return wire.Errorf(CodeTooLarge, "archive holds more than the limit of %d bytes", c.m.limits.ExtractMaxBytes)
		}
		name, err := cleanEntryName(e.name)
		if err != nil || name == "" {
			return err
		}
		if err := conflict(kinds, name, e.isDir); err != nil {
			return err
		}
		target, err := c.checkTarget(joinRel(toRel, name), joinRel(to, name), e.isDir)
		if err != nil {
			return err
		}
		plan = append(plan, plannedEntry{name: e.name, target: target})
		return nil
	})
	return plan, err
}

// cleanEntryName checks an entry name; "" means skip it (like "./").
func cleanEntryName(name string) (string, error) {
	if strings.HasPrefix(name, "/") || path.IsAbs(name) || (len(name) > 1 && name[1] == ':') {
		return "", wire.Errorf(CodeOutsideRoot, "archive entry %q is an absolute path", name)
	}
	rel, err := cleanPath(name)
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return "", wire.Errorf(we.Code, "archive entry: %s", we.Msg)
		}
		return "", err
	}
	return rel, nil
}

// conflict refuses an entry whose kind clashes with an earlier entry: a
// file where a directory was, or below a file.
func conflict(kinds map[string]bool, name string, isDir bool) error {
	names := strings.Split(name, "/")
	for i := 1; i < len(names); i++ {
		p := strings.Join(names[:i], "/")
		if dir, ok := kinds[p]; ok && !dir {
			return wire.Errorf(CodeInvalidArch, "archive entry %q is below the file entry %q", name, p)
		}
		kinds[p] = true
	}
	if dir, ok := kinds[name]; ok && dir != isDir {
		return wire.Errorf(CodeInvalidArch, "archive entry %q is both a file and a directory", name)
	}
	kinds[name] = isDir
	return nil
}

// checkTarget resolves an entry's target as the tree is now and checks the
// deny policy and the kind of what is already there.
func (c *call) checkTarget(orig, target string, isDir bool) (string, error) {
	res, err := resolve(c.r, target, lookup{follow: isDir, missing: true})
	if err != nil {
		return "", err
	}
	if c.denied(isDir, orig, target, res.rel) {
		return "", errDenied(orig)
	}
	switch {
	case res.info == nil:
	case isDir && !res.info.IsDir():
		return "", wire.Errorf(CodeExists, "extract: %q exists and is not a directory", orig)
	case !isDir && res.info.IsDir():
		return "", wire.Errorf(CodeIsADirectory, "extract: %q exists and is a directory", orig)
	case !isDir && isSpecial(res.info):
		return "", wire.Errorf(CodeNotAFile, "extract: %q exists and is not a regular file", orig)
	}
	return res.rel, nil
}

// runExtract writes the planned entries, the archive read a second time.
func (c *call) runExtract(ar archiveReader, plan []plannedEntry, to string) (ExtractReply, error) {
	var reply ExtractReply
	if err := mkdirAll(c.r, to); err != nil {
		return reply, err
	}
	i := 0
	err := ar.each(func(e archEntry) error {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if name, _ := cleanEntryName(e.name); name == "" {
			return nil
		}
		if i >= len(plan) || plan[i].name != e.name {
			return wire.Errorf(CodeInvalidArch, "archive changed while it was extracted")
		}
		p := plan[i]
		i++
		if e.isDir {
			reply.Entries++
			return mkdirAll(c.r, p.target)
		}
		n, err := c.extractFile(e, p.target, c.m.limits.ExtractMaxBytes-reply.Size)
		reply.Size += n
		reply.Entries++
		return err
	})
	return reply, err
}

func (c *call) extractFile(e archEntry, target string, budget int64) (int64, error) {
	dir := parentRel(target)
	if err := mkdirAll(c.r, dir); err != nil {
		return 0, err
	}
	rd, err := e.open()
	if err != nil {
		return 0, wire.Errorf(CodeInvalidArch, "archive entry %q: %v", e.name, err)
	}
	if rc, ok := rd.(io.Closer); ok {
		defer rc.Close()
	}
	mode := e.mode.Perm()
	if mode == 0 {
		mode = newFileMode
	}
	n, err := writeAtomic(c.r, target, newContent{src: rd, max: min(budget, e.size), mode: mode})
	if err != nil && !errors.Is(err, errTooLarge) && !isFSError(err) {
		return n, wire.Errorf(CodeInvalidArch, "archive entry %q: %v", e.name, err)
	}
	return n, err
}

// isFSError reports whether err came from the file system rather than
// from decoding the archive.
func isFSError(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	return errors.As(err, &pe) || errors.As(err, &le)
}

type zipReader struct{ zr *zip.Reader }

func (z zipReader) each(fn func(e archEntry) error) error {
	for _, zf := range z.zr.File {
		m := zf.Mode()
		isDir := m.IsDir() || strings.HasSuffix(zf.Name, "/")
		if !isDir && m.Type() != 0 {
			return wire.Errorf(CodeInvalidArch, "archive entry %q is a %s; only files and directories are extracted", zf.Name, kindOf(m))
		}
		size := int64(math.MaxInt64)
		if zf.UncompressedSize64 < math.MaxInt64 {
			size = int64(zf.UncompressedSize64)
		}
		if isDir {
			size = 0
		}
		e := archEntry{name: zf.Name, isDir: isDir, mode: m.Perm(), size: size,
			open: func() (io.Reader, error) { return zf.Open() }}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	}
	return "special file"
}

type tarGzReader struct {
	f       *os.File
	maxRead int64 // decompressed bytes read at most, headers included
	rel     string
}

func (t *tarGzReader) each(fn func(e archEntry) error) error {
	if _, err := t.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	gz, err := gzip.NewReader(t.f)
	if err != nil {
		return wire.Errorf(CodeInvalidArch, "extract %q: not a valid gzip stream: %v", t.rel, err)
	}
	defer gz.Close()
	lr := &io.LimitedReader{R: gz, N: t.maxRead}
	tr := tar.NewReader(lr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if lr.N <= 0 {
			return wire.Errorf(CodeTooLarge, "extract %q: archive decompresses to more than the limit", t.rel)
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return wire.Errorf(CodeInvalidArch, "extract %q: not a valid tar.gz archive: %v", t.rel, err)
		}
		e, ok, err := tarEntry(h, tr)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// tarEntry converts a header; ok false skips it (global headers).
func tarEntry(h *tar.Header, tr *tar.Reader) (archEntry, bool, error) {
	e := archEntry{name: h.Name, mode: fs.FileMode(h.Mode).Perm(), size: h.Size,
		open: func() (io.Reader, error) { return tr, nil }}
	switch h.Typeflag {
	case tar.TypeDir:
		e.isDir, e.size = true, 0
	case tar.TypeReg:
	case tar.TypeXGlobalHeader:
		return e, false, nil
	case tar.TypeSymlink, tar.TypeLink:
		return e, false, wire.Errorf(CodeInvalidArch, "archive entry %q is a link; only files and directories are extracted", h.Name)
	default:
		return e, false, wire.Errorf(CodeInvalidArch, "archive entry %q has type %q; only files and directories are extracted", h.Name, h.Typeflag)
	}
	return e, true, nil
}
