package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// buildLayer is files as an OCI layer (go-containerregistry's tarball
// layer, gzipped once and kept in memory): a tar of them sorted by path with
// every parent directory (root-owned, 0755) added. Every entry has mtime
// created, so the same inputs give the same digest.
func buildLayer(files []File, created time.Time) (v1.Layer, error) {
	entries, err := withParents(files)
	if err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, f := range entries {
		if err := writeEntry(tw, f, created); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close layer tar: %w", err)
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw.Bytes())), nil }
	l, err := tarball.LayerFromOpener(open, tarball.WithMediaType(types.OCILayer),
		tarball.WithCompressionLevel(gzip.DefaultCompression), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return l, nil
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
