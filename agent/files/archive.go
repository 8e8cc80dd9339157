package files

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
)

// Archive formats, chosen by the archive's name.
const (
	formatZip   = "zip"
	formatTarGz = "tar.gz"
)

// formatOf picks the format from a name's extension, case-insensitively.
func formatOf(name string) (string, error) {
	n := strings.ToLower(name)
	switch {
	case strings.HasSuffix(n, ".zip"):
		return formatZip, nil
	case strings.HasSuffix(n, ".tar.gz"), strings.HasSuffix(n, ".tgz"):
		return formatTarGz, nil
	}
	return "", badArgs("%q: unknown archive format; want .zip, .tar.gz or .tgz", name)
}

// ArchiveReply is fm_archive's reply.
type ArchiveReply struct {
	Entries int   `json:"entries"` // files and directories stored
	Size    int64 `json:"size"`    // bytes of the archive
}

type archiveArgs struct {
	Paths []string `json:"paths"`
	To    *string  `json:"to"`
}

// archiveSource is one path to archive and the name it gets.
type archiveSource struct {
	rel  string // as the client named it
	res  resolved
	name string // entry name prefix: the base name, "" for the root
}

// archive writes the named files and directory trees into a new zip or
// tar.gz archive. Each path is stored under its base name (the root's
// contents at the top). A denied path named in paths is refused; denied
// entries inside a tree are skipped, like fm_list hides them; symlinks and
// special files inside trees are skipped. The archive is written to a
// temporary file and renamed into place; to must not exist.
func (c *call) archive(a archiveArgs) (any, error) {
	if len(a.Paths) == 0 {
		return nil, missingArg("paths")
	}
	srcs, err := c.archiveSources(a.Paths)
	if err != nil {
		return nil, err
	}
	toRel, to, err := c.arg("to", a.To, lookup{missing: true})
	if err != nil {
		return nil, err
	}
	format, err := formatOf(toRel)
	if err != nil {
		return nil, err
	}
	if to.info != nil {
		return nil, wire.Errorf(CodeExists, "archive %q already exists", toRel)
	}
	reply, err := c.writeArchive(format, to.rel, srcs)
	if err != nil {
		return nil, mapErr("archive", toRel, err)
	}
	c.m.log.Info("archive written", "to", toRel, "entries", reply.Entries, "bytes", reply.Size)
	return reply, nil
}

func (c *call) archiveSources(paths []string) ([]archiveSource, error) {
	seen := map[string]bool{}
	var srcs []archiveSource
	for _, p := range paths {
		rel, res, err := c.arg("paths", &p, lookup{follow: true})
		if err != nil {
			return nil, err
		}
		name := ""
		if rel != "" {
			name = path.Base(rel)
		}
		if seen[name] {
			return nil, badArgs("archive: two paths named %q", name)
		}
		seen[name] = true
		if !res.info.IsDir() {
			if err := c.contentFile(rel, res.info); err != nil {
				return nil, err
			}
		}
		srcs = append(srcs, archiveSource{rel: rel, res: res, name: name})
	}
	return srcs, nil
}

// writeArchive writes the archive beside to and renames it into place.
func (c *call) writeArchive(format, to string, srcs []archiveSource) (ArchiveReply, error) {
	tmp := joinRel(parentRel(to), tempName())
	f, err := c.r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, newFileMode)
	if err != nil {
		return ArchiveReply{}, err
	}
	if err := ownFile(f); err != nil {
		f.Close()
		_ = c.r.Remove(tmp)
		return ArchiveReply{}, err
	}
	aw := newArchiveWriter(format, f)
	var reply ArchiveReply
	for _, s := range srcs {
		if err = c.addTree(aw, s, tmp, &reply); err != nil {
			break
		}
	}
	if cerr := aw.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		var fi fs.FileInfo
		if fi, err = f.Stat(); err == nil {
			reply.Size = fi.Size()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if _, lerr := c.r.Lstat(to); lerr == nil {
			err = wire.Errorf(CodeExists, "archive %q appeared while it was written", to)
		}
	}
	if err == nil {
		err = c.r.Rename(tmp, to)
	}
	if err != nil {
		_ = c.r.Remove(tmp)
		return ArchiveReply{}, err
	}
	return reply, nil
}

// addTree adds one source, skipping the archive being written.
func (c *call) addTree(aw archiveWriter, s archiveSource, tmp string, reply *ArchiveReply) error {
	return walk(c.ctx, c.r, s.res.rel, s.res.info, func(p string, fi fs.FileInfo) error {
		if p == tmp {
			return nil
		}
		if p != s.res.rel && c.denied(fi.IsDir(), below(p, s.res.rel, s.rel), p) {
			return errSkip
		}
		name := below(p, s.res.rel, s.name)
		switch {
		case fi.IsDir():
			if name == "" {
				return nil
			}
			reply.Entries++
			return aw.dir(name, fi)
		case fi.Mode().IsRegular():
			reply.Entries++
			return c.addFile(aw, p, below(p, s.res.rel, s.rel), name)
		}
		return nil
	})
}

// addFile adds the file at p (named orig by the client) as name.
func (c *call) addFile(aw archiveWriter, p, orig, name string) error {
	f, fi, err := c.openContent(p, orig)
	if err != nil {
		return err
	}
	defer f.Close()
	return aw.file(name, fi, f)
}

// archiveWriter writes entries of one format.
type archiveWriter interface {
	dir(name string, fi fs.FileInfo) error
	file(name string, fi fs.FileInfo, r io.Reader) error
	Close() error
}

func newArchiveWriter(format string, w io.Writer) archiveWriter {
	if format == formatZip {
		return zipWriter{zip.NewWriter(w)}
	}
	gz := gzip.NewWriter(w)
	return &tarGzWriter{gz: gz, tw: tar.NewWriter(gz)}
}

type zipWriter struct{ zw *zip.Writer }

func (z zipWriter) dir(name string, fi fs.FileInfo) error {
	h := &zip.FileHeader{Name: name + "/", Modified: fi.ModTime()}
	h.SetMode(fs.ModeDir | fi.Mode().Perm())
	_, err := z.zw.CreateHeader(h)
	return err
}

func (z zipWriter) file(name string, fi fs.FileInfo, r io.Reader) error {
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: fi.ModTime()}
	h.SetMode(fi.Mode().Perm())
	w, err := z.zw.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

func (z zipWriter) Close() error { return z.zw.Close() }

type tarGzWriter struct {
	gz *gzip.Writer
	tw *tar.Writer
}

func (t *tarGzWriter) dir(name string, fi fs.FileInfo) error {
	return t.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: int64(fi.Mode().Perm()), ModTime: fi.ModTime()})
}

func (t *tarGzWriter) file(name string, fi fs.FileInfo, r io.Reader) error {
	h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: fi.Size(), Mode: int64(fi.Mode().Perm()), ModTime: fi.ModTime()}
	if err := t.tw.WriteHeader(h); err != nil {
		return err
	}
	n, err := io.CopyN(t.tw, r, fi.Size())
	if err == io.EOF {
		err = fmt.Errorf("%s shrank while archived (%d of %d bytes)", name, n, fi.Size())
	}
	return err
}

func (t *tarGzWriter) Close() error {
	if err := t.tw.Close(); err != nil {
		return err
	}
	return t.gz.Close()
}
