package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// readImage is one image read back from an archive with
// go-containerregistry's parsers, every blob checked against its digest.
type readImage struct {
	Platform v1.Platform
	Config   *v1.ConfigFile
	Manifest *v1.Manifest
	Files    map[string]readFile // by path without the leading slash
}

type readFile struct {
	Header *tar.Header
	Data   []byte
}

// readArchive reads an OCI archive: oci-layout, index.json (a manifest or
// an image index of them), the blobs, and Docker's manifest.json when
// there is one. It returns the images and index.json's one entry.
func readArchive(t *testing.T, path string) ([]readImage, v1.Descriptor, []dockerManifest) {
	t.Helper()
	entries := tarEntries(t, path)
	if got := string(entries["oci-layout"]); got != `{"imageLayoutVersion":"1.0.0"}` {
		t.Fatalf("%s: oci-layout %q", path, got)
	}
	index, err := v1.ParseIndexManifest(bytes.NewReader(entries["index.json"]))
	if err != nil || len(index.Manifests) != 1 {
		t.Fatalf("%s: index.json: %v %+v", path, err, index)
	}
	top := index.Manifests[0]
	manifests := []v1.Descriptor{top}
	if top.MediaType == types.OCIImageIndex {
		nested, err := v1.ParseIndexManifest(bytes.NewReader(blobOf(t, entries, top)))
		if err != nil {
			t.Fatalf("%s: image index: %v", path, err)
		}
		manifests = nested.Manifests
	}
	var images []readImage
	for _, d := range manifests {
		images = append(images, readManifest(t, entries, d))
	}
	var docker []dockerManifest
	if raw, ok := entries["manifest.json"]; ok {
		if err := json.Unmarshal(raw, &docker); err != nil {
			t.Fatalf("%s: manifest.json: %v", path, err)
		}
	}
	return images, top, docker
}

func readManifest(t *testing.T, entries map[string][]byte, d v1.Descriptor) readImage {
	t.Helper()
	if d.MediaType != types.OCIManifestSchema1 || d.Platform == nil {
		t.Fatalf("manifest descriptor %+v: want an OCI manifest with a platform", d)
	}
	m, err := v1.ParseManifest(bytes.NewReader(blobOf(t, entries, d)))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := v1.ParseConfigFile(bytes.NewReader(blobOf(t, entries, m.Config)))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.RootFS.DiffIDs) != len(m.Layers) {
		t.Fatalf("config has %d diff_ids for %d layers", len(cfg.RootFS.DiffIDs), len(m.Layers))
	}
	img := readImage{Platform: *d.Platform, Config: cfg, Manifest: m, Files: map[string]readFile{}}
	for i, l := range m.Layers {
		if l.MediaType != types.OCILayer {
			t.Fatalf("layer %d media type %s", i, l.MediaType)
		}
		raw := gunzip(t, blobOf(t, entries, l))
		if h, _, _ := v1.SHA256(bytes.NewReader(raw)); h != cfg.RootFS.DiffIDs[i] {
			t.Fatalf("layer %d: uncompressed digest %s, config's diff_id %s", i, h, cfg.RootFS.DiffIDs[i])
		}
		tr := tar.NewReader(bytes.NewReader(raw))
		for {
			hdr, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			img.Files[strings.TrimSuffix(hdr.Name, "/")] = readFile{Header: hdr, Data: data}
		}
	}
	return img
}

// blobOf is d's blob, checked against d's size and digest.
func blobOf(t *testing.T, entries map[string][]byte, d v1.Descriptor) []byte {
	t.Helper()
	b, ok := entries["blobs/sha256/"+d.Digest.Hex]
	if !ok {
		t.Fatalf("blob %s missing", d.Digest)
	}
	if h, _, _ := v1.SHA256(bytes.NewReader(b)); h != d.Digest || int64(len(b)) != d.Size {
		t.Fatalf("blob %s: digest %s, %d bytes (descriptor says %d)", d.Digest, h, len(b), d.Size)
	}
	return b
}

func tarEntries(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if hdr.Typeflag == tar.TypeReg {
			if out[hdr.Name], err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
