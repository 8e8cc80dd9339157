package image

import (
	"archive/tar"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// readLayout is an archive read back with go-containerregistry: untarred,
// opened with layout.FromPath and checked whole with pkg/v1/validate (every
// manifest, config and layer against its digest, every layer against its
// diff_id).
type readLayout struct {
	Dir    string           // the untarred archive
	Top    v1.Descriptor    // index.json's one entry
	Images []readImage      // by platform, in the index's order
	Docker tarball.Manifest // manifest.json; nil when there is none
}

// readImage is one image of an archive and its flattened file system
// (mutate.Extract), by path without the leading slash.
type readImage struct {
	Platform v1.Platform
	Image    v1.Image
	Manifest *v1.Manifest
	Config   *v1.ConfigFile
	Files    map[string]readFile
}

type readFile struct {
	Header *tar.Header
	Data   []byte
}

func readArchive(t *testing.T, path string) readLayout {
	t.Helper()
	r := readLayout{Dir: t.TempDir()}
	untar(t, path, r.Dir)
	lp, err := layout.FromPath(r.Dir)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	idx, err := lp.ImageIndex()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	im, err := idx.IndexManifest()
	if err != nil || len(im.Manifests) != 1 {
		t.Fatalf("%s: index.json: %v %+v", path, err, im)
	}
	if err := validate.Index(idx); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	r.Top = im.Manifests[0]
	parent, manifests := idx, []v1.Descriptor{r.Top}
	if r.Top.MediaType == types.OCIImageIndex {
		if parent, err = idx.ImageIndex(r.Top.Digest); err != nil {
			t.Fatalf("%s: image index: %v", path, err)
		}
		if h, err := parent.Digest(); err != nil || h != r.Top.Digest {
			t.Fatalf("%s: image index digest %s (%v), index.json says %s", path, h, err, r.Top.Digest)
		}
		nested, err := parent.IndexManifest()
		if err != nil {
			t.Fatalf("%s: image index: %v", path, err)
		}
		manifests = nested.Manifests
	}
	for _, d := range manifests {
		r.Images = append(r.Images, readManifest(t, parent, d))
	}
	if raw, err := os.ReadFile(filepath.Join(r.Dir, "manifest.json")); err == nil {
		if err := json.Unmarshal(raw, &r.Docker); err != nil {
			t.Fatalf("%s: manifest.json: %v", path, err)
		}
	}
	return r
}

func readManifest(t *testing.T, idx v1.ImageIndex, d v1.Descriptor) readImage {
	t.Helper()
	if d.MediaType != types.OCIManifestSchema1 || d.Platform == nil {
		t.Fatalf("manifest descriptor %+v: want an OCI manifest with a platform", d)
	}
	img, err := idx.Image(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := img.Digest(); err != nil || h != d.Digest {
		t.Fatalf("manifest digest %s (%v), its descriptor says %s", h, err, d.Digest)
	}
	r := readImage{Platform: *d.Platform, Image: img, Files: map[string]readFile{}}
	if r.Manifest, err = img.Manifest(); err != nil {
		t.Fatal(err)
	}
	if r.Config, err = img.ConfigFile(); err != nil {
		t.Fatal(err)
	}
	if r.Manifest.Config.MediaType != types.OCIConfigJSON {
		t.Fatalf("config media type %s", r.Manifest.Config.MediaType)
	}
	for i, l := range r.Manifest.Layers {
		if l.MediaType != types.OCILayer {
			t.Fatalf("layer %d media type %s", i, l.MediaType)
		}
	}
	fsys := mutate.Extract(img)
	defer fsys.Close()
	tr := tar.NewReader(fsys)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return r
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		r.Files[strings.TrimSuffix(hdr.Name, "/")] = readFile{Header: hdr, Data: data}
	}
}

// untar unpacks an archive's directories and regular files into dir.
func untar(t *testing.T, path, dir string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !filepath.IsLocal(hdr.Name) {
			t.Fatalf("%s: entry %q outside the archive", path, hdr.Name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(dst, 0o755)
		case tar.TypeReg:
			var data []byte
			if data, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(dst, data, 0o644)
			}
		default:
			t.Fatalf("%s: entry %q of type %c", path, hdr.Name, hdr.Typeflag)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
