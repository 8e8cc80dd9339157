package files

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/unixmode"
)

// Entry describes one file, directory or symlink (never followed).
type Entry struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"` // TypeFile, TypeDir or TypeSymlink
	Size     int64     `json:"size"` // bytes; 0 for directories
	Mode     string    `json:"mode"` // octal permission bits, "0644"
	Modified time.Time `json:"modified"`
}

// Entry types. Devices, FIFOs and sockets are listed as files; reading them
// is refused with not_a_file.
const (
	TypeFile    = "file"
	TypeDir     = "dir"
	TypeSymlink = "symlink"
)

// ListReply is fm_list's reply: directories first, then files and
// symlinks, each group by name (byte order). Denied entries are left out.
type ListReply struct {
	Entries []Entry `json:"entries"`
}

// StatReply is fm_stat's reply: the entry and its canonical path.
type StatReply struct {
	Path string `json:"path"` // relative to the instance root, "" for the root
	Entry
}

// ReadReply is fm_read's reply.
type ReadReply struct {
	Content  string `json:"content"`
	Encoding string `json:"encoding"` // EncodingUTF8 or EncodingBase64
	Size     int64  `json:"size"`     // size of the whole file, not of content
}

// Content encodings.
const (
	EncodingUTF8   = "utf8"
	EncodingBase64 = "base64"
)

// SearchResult is one fm_search hit.
type SearchResult struct {
	Path string `json:"path"` // relative to the instance root
	Entry
}

// SearchReply is fm_search's reply, shallowest first, by name within a
// directory. Truncated says the limit cut the results short.
type SearchReply struct {
	Results   []SearchResult `json:"results"`
	Truncated bool           `json:"truncated"`
}

// pathArgs is the argument of funcs taking one path.
type pathArgs struct {
	Path *string `json:"path"`
}

func entryOf(name string, fi fs.FileInfo) Entry {
	e := Entry{Name: name, Type: TypeFile, Size: fi.Size(), Mode: modeString(fi.Mode()), Modified: fi.ModTime().UTC()}
	switch {
	case fi.IsDir():
		e.Type, e.Size = TypeDir, 0
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Type = TypeSymlink
	}
	return e
}

// modeString renders permission bits (with setuid, setgid, sticky) in octal.
func modeString(m fs.FileMode) string {
	return fmt.Sprintf("%04o", unixmode.Bits(m))
}

func (c *call) list(a pathArgs) (any, error) {
	rel, res, err := c.arg("path", a.Path, lookup{follow: true})
	if err != nil {
		return nil, err
	}
	if !res.info.IsDir() {
		return nil, wire.Errorf(CodeNotADirectory, "list %q: not a directory", rel)
	}
	infos, err := c.readDir(res.rel)
	if err != nil {
		return nil, mapErr("list", rel, err)
	}
	out := make([]Entry, 0, len(infos))
	for _, fi := range infos {
		name := fi.Name()
		if !c.m.deny.empty() && c.denied(fi.IsDir(), joinRel(rel, name), joinRel(res.rel, name)) {
			continue
		}
		out = append(out, entryOf(name, fi))
	}
	slices.SortFunc(out, func(x, y Entry) int {
		if dx, dy := x.Type == TypeDir, y.Type == TypeDir; dx != dy {
			if dx {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	return ListReply{Entries: out}, nil
}

// readDir lists a directory inside the root with Lstat information, which
// os.Root obtains relative to the directory's descriptor.
func (c *call) readDir(rel string) ([]fs.FileInfo, error) {
	f, err := c.r.Open(osPath(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdir(-1)
}

func (c *call) stat(a pathArgs) (any, error) {
	rel, res, err := c.arg("path", a.Path, lookup{})
	if err != nil {
		return nil, err
	}
	return StatReply{Path: rel, Entry: entryOf(path.Base("/"+rel), res.info)}, nil
}

type readArgs struct {
	Path   *string `json:"path"`
	Offset int64   `json:"offset"`
	Limit  *int64  `json:"limit"`
}

func (c *call) read(a readArgs) (any, error) {
	rel, res, err := c.arg("path", a.Path, lookup{follow: true})
	if err != nil {
		return nil, err
	}
	if err := c.contentFile(rel, res.info); err != nil {
		return nil, err
	}
	f, fi, err := c.openContent(res.rel, rel)
	if err != nil {
		return nil, mapErr("read", rel, err)
	}
	defer f.Close()
	n, err := c.readSpan(rel, fi.Size(), a)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	got, err := f.ReadAt(buf, a.Offset)
	if err != nil && err != io.EOF {
		return nil, mapErr("read", rel, err)
	}
	content, enc := encodeContent(buf[:got])
	return ReadReply{Content: content, Encoding: enc, Size: fi.Size()}, nil
}

// readSpan checks offset and limit against the file size and ReadMax and
// returns how many bytes to read.
func (c *call) readSpan(rel string, size int64, a readArgs) (int64, error) {
	max := c.m.limits.ReadMax
	switch {
	case a.Offset < 0:
		return 0, badArgs("read %q: negative offset", rel)
	case a.Limit != nil && *a.Limit < 0:
		return 0, badArgs("read %q: negative limit", rel)
	case a.Limit != nil && *a.Limit > max:
		return 0, wire.Errorf(CodeTooLarge, "read %q: limit %d is more than the %d-byte read limit", rel, *a.Limit, max)
	}
	rest := max64(size-a.Offset, 0)
	if a.Limit != nil && *a.Limit > 0 {
		return min(rest, *a.Limit), nil
	}
	if rest > max {
		return 0, wire.Errorf(CodeTooLarge,
			"read %q: %d bytes to read, more than the %d-byte read limit; read it in parts with offset and limit", rel, rest, max)
	}
	return rest, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// encodeContent returns b as text when it is valid UTF-8 without NUL bytes,
// else base64.
func encodeContent(b []byte) (string, string) {
	if utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
		return string(b), EncodingUTF8
	}
	return base64.StdEncoding.EncodeToString(b), EncodingBase64
}

// isSpecial reports whether fi is a device, FIFO or socket.
func isSpecial(fi fs.FileInfo) bool {
	return fi.Mode()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeIrregular) != 0
}

// regularFile refuses directories and special files.
func regularFile(rel string, fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return wire.Errorf(CodeIsADirectory, "%q is a directory", rel)
	case !fi.Mode().IsRegular():
		return wire.Errorf(CodeNotAFile, "%q is not a regular file", rel)
	}
	return nil
}
