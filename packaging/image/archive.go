package image

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Annotations on index.json's entry that name the image when it is loaded:
// containerd's (Docker's containerd image store) and the OCI one (skopeo,
// podman).
const (
	AnnotationContainerdName = "io.containerd.image.name"
	AnnotationRefName        = "org.opencontainers.image.ref.name"
)

// ArchiveName is the file an image's archive is written to.
func ArchiveName(name, version string) string { return name + "-" + version + ".oci.tar" }

// Tags are the names `docker load` gives an archive's image.
func Tags(name, version string) []string { return []string{name + ":" + version, name + ":latest"} }

// WriteArchive writes the images of one name (one per platform) as an OCI
// image layout (go-containerregistry's layout.Write) in a tar. index.json
// has one entry, named with the annotations above: the image itself for one
// platform, an image index of them for several (Docker's containerd image
// store, podman and skopeo load it; the classic store does not). A
// single-platform archive also carries Docker's manifest.json (the
// `docker save` format, go-containerregistry's tarball.Manifest) naming the
// same blobs with Tags, which the classic store needs. Every entry's mtime
// is m.Created.
func WriteArchive(w io.Writer, name string, m Meta, images []Built) error {
	if len(images) == 0 {
		return fmt.Errorf("archive %s: no images", name)
	}
	dir, err := os.MkdirTemp("", "corrosion-layout-*")
	if err != nil {
		return fmt.Errorf("archive %s: %w", name, err)
	}
	defer os.RemoveAll(dir)
	top := mutate.IndexAddendum{Add: images[0].Image, Descriptor: v1.Descriptor{Platform: images[0].Platform.v1()}}
	if len(images) > 1 {
		var adds []mutate.IndexAddendum
		for _, b := range images {
			adds = append(adds, mutate.IndexAddendum{Add: b.Image, Descriptor: v1.Descriptor{Platform: b.Platform.v1()}})
		}
		top.Add, top.Platform = mutate.AppendManifests(empty.Index, adds...), nil
	}
	top.Annotations = map[string]string{
		AnnotationContainerdName: "docker.io/library/" + name + ":" + m.Version,
		AnnotationRefName:        name + ":" + m.Version,
	}
	if _, err := layout.Write(dir, mutate.AppendManifests(empty.Index, top)); err != nil {
		return fmt.Errorf("archive %s: write OCI layout: %w", name, err)
	}
	if len(images) == 1 {
		if err := writeDockerManifest(dir, Tags(name, m.Version), images[0].Image); err != nil {
			return fmt.Errorf("archive %s: %w", name, err)
		}
	}
	return tarDir(w, dir, m.Created)
}

// writeDockerManifest writes manifest.json into the layout at dir: img's
// config and layers by their paths under blobs/, and its tags.
func writeDockerManifest(dir string, tags []string, img v1.Image) error {
	cfg, err := img.ConfigName()
	if err != nil {
		return fmt.Errorf("manifest.json: %w", err)
	}
	layers, err := img.Layers()
	if err != nil {
		return fmt.Errorf("manifest.json: %w", err)
	}
	d := tarball.Descriptor{Config: blobPath(cfg), RepoTags: tags}
	for _, l := range layers {
		h, err := l.Digest()
		if err != nil {
			return fmt.Errorf("manifest.json: %w", err)
		}
		d.Layers = append(d.Layers, blobPath(h))
	}
	raw, err := json.Marshal(tarball.Manifest{d})
	if err != nil {
		return fmt.Errorf("manifest.json: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), raw, 0o644)
}

func blobPath(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }

// tarDir writes the tree under dir as a tar, in lexical order, root-owned,
// directories 0755 and files 0644, every entry as writeEntry writes a
// layer's (mtime created).
func tarDir(w io.Writer, dir string, created time.Time) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f := File{Path: "/" + filepath.ToSlash(rel), Mode: 0o644, Source: p}
		if d.IsDir() {
			f = File{Path: f.Path, Mode: fs.ModeDir | 0o755}
		}
		return writeEntry(tw, f, created)
	})
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	return nil
}
