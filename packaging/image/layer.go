package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// blob is content-addressed data of an archive.
type blob struct {
	Digest v1.Hash
	Data   []byte
}

func newBlob(data []byte) blob {
	h, _, _ := v1.SHA256(bytes.NewReader(data)) // reading memory never fails
	return blob{Digest: h, Data: data}
}

// layer is one gzipped tar layer and the digest of its uncompressed tar
// (the config's diff_id).
type layer struct {
	blob
	DiffID v1.Hash
}

// buildLayer writes files, sorted by path with every parent directory
// (root-owned, 0755) added, as a gzipped tar. Every entry has mtime
// created, so the same inputs give the same digest.
func buildLayer(files []File, created time.Time) (layer, error) {
	entries, err := withParents(files)
	if err != nil {
		return layer{}, err
	}
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, f := range entries {
		if err := writeEntry(tw, f, created); err != nil {
			return layer{}, err
		}
	}
	if err := tw.Close(); err != nil {
		return layer{}, fmt.Errorf("close layer tar: %w", err)
	}
	diffID, _, _ := v1.SHA256(bytes.NewReader(raw.Bytes()))
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.DefaultCompression) // a valid level never fails
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return layer{}, fmt.Errorf("compress layer: %w", err)
	}
	if err := zw.Close(); err != nil {
		return layer{}, fmt.Errorf("compress layer: %w", err)
	}
	return layer{blob: newBlob(gz.Bytes()), DiffID: diffID}, nil
}

// withParents checks files' paths and returns them sorted, with the
// missing parent directories added.
func withParents(files []File) ([]File, error) {
	byPath := map[string]File{}
	for _, f := range files {
		clean := path.Clean(f.Path)
		if !strings.HasPrefix(f.Path, "/") || clean != f.Path || clean == "/" {
			return nil, fmt.Errorf("layer file %q: not a clean absolute path", f.Path)
		}
		if _, dup := byPath[clean]; dup {
			return nil, fmt.Errorf("layer file %q: listed twice", f.Path)
		}
		byPath[clean] = f
	}
	for p := range byPath {
		for dir := path.Dir(p); dir != "/"; dir = path.Dir(dir) {
			if _, ok := byPath[dir]; !ok {
				byPath[dir] = File{Path: dir, Mode: fs.ModeDir | 0o755}
			}
		}
	}
	out := make([]File, 0, len(byPath))
	for _, f := range byPath {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// writeEntry writes one file or directory; a Source file is read whole.
func writeEntry(tw *tar.Writer, f File, created time.Time) error {
	name := strings.TrimPrefix(f.Path, "/")
	hdr := &tar.Header{Name: name, Mode: int64(f.Mode.Perm()) | modeBits(f.Mode), Uid: f.UID, Gid: f.GID,
		ModTime: created.UTC().Truncate(time.Second), Format: tar.FormatPAX}
	if f.Mode.IsDir() {
		hdr.Typeflag, hdr.Name = tar.TypeDir, name+"/"
		return writeHeader(tw, hdr)
	}
	data := f.Data
	if f.Source != "" {
		b, err := os.ReadFile(f.Source)
		if err != nil {
			return fmt.Errorf("layer file %s: %w", f.Path, err)
		}
		data = b
	}
	hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(data))
	if err := writeHeader(tw, hdr); err != nil {
		return err
	}
	if _, err := tw.Write(data); err != nil {
		return fmt.Errorf("layer file %s: %w", f.Path, err)
	}
	return nil
}

func writeHeader(tw *tar.Writer, hdr *tar.Header) error {
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("layer entry %s: %w", hdr.Name, err)
	}
	return nil
}

// modeBits are the tar mode's setuid, setgid and sticky bits.
func modeBits(m fs.FileMode) int64 {
	var b int64
	if m&fs.ModeSetuid != 0 {
		b |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		b |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		b |= 0o1000
	}
	return b
}
