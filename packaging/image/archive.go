package image

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Annotations on index.json's entry that name the image when it is loaded:
// containerd's (Docker's image store) and the OCI one (skopeo, podman).
const (
	AnnotationContainerdName = "io.containerd.image.name"
	AnnotationRefName        = "org.opencontainers.image.ref.name"
)

// ArchiveName is the file an image's archive is written to.
func ArchiveName(name, version string) string { return name + "-" + version + ".oci.tar" }

// Tags are the names `docker load` gives an archive's image.
func Tags(name, version string) []string { return []string{name + ":" + version, name + ":latest"} }

// dockerManifest is one entry of Docker's manifest.json (the format of
// `docker save` before OCI layouts), which `docker load` reads.
type dockerManifest struct {
	Config   string
	RepoTags []string
	Layers   []string
}

// WriteArchive writes the images of one name (one per platform) as an OCI
// image layout in a tar: oci-layout, index.json, blobs/sha256/*. One
// platform: index.json names its manifest, and a Docker manifest.json
// names the same blobs with Tags. Several: index.json names an image index
// of them (multi-platform; Docker ≥ 25 and podman load it, older Dockers
// do not). Every entry's mtime is m.Created.
func WriteArchive(w io.Writer, name string, m Meta, images []Built) error {
	if len(images) == 0 {
		return fmt.Errorf("archive %s: no images", name)
	}
	blobs := map[v1.Hash][]byte{}
	for _, b := range images {
		blobs[b.Manifest.Digest], blobs[b.Config.Digest] = b.Manifest.Data, b.Config.Data
		for _, l := range b.Layers {
			blobs[l.Digest] = l.Data
		}
	}
	top := images[0].descriptor()
	if len(images) > 1 {
		idx := v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex}
		for _, b := range images {
			idx.Manifests = append(idx.Manifests, b.descriptor())
		}
		raw, err := json.Marshal(idx)
		if err != nil {
			return fmt.Errorf("archive %s: image index: %w", name, err)
		}
		ib := newBlob(raw)
		blobs[ib.Digest] = ib.Data
		top = v1.Descriptor{MediaType: types.OCIImageIndex, Size: int64(len(raw)), Digest: ib.Digest}
	}
	top.Annotations = map[string]string{
		AnnotationContainerdName: "docker.io/library/" + name + ":" + m.Version,
		AnnotationRefName:        name + ":" + m.Version,
	}
	files, err := layoutFiles(name, m, images, top)
	if err != nil {
		return err
	}
	return writeTar(w, files, blobs, m.Created)
}

// layoutFiles are the archive's small files: oci-layout, index.json and,
// for one platform, manifest.json.
func layoutFiles(name string, m Meta, images []Built, top v1.Descriptor) (map[string][]byte, error) {
	index, err := json.Marshal(v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex, Manifests: []v1.Descriptor{top}})
	if err != nil {
		return nil, fmt.Errorf("archive %s: index.json: %w", name, err)
	}
	files := map[string][]byte{"oci-layout": []byte(`{"imageLayoutVersion":"1.0.0"}`), "index.json": index}
	if len(images) == 1 {
		dm := dockerManifest{Config: blobPath(images[0].Config.Digest), RepoTags: Tags(name, m.Version)}
		for _, l := range images[0].Layers {
			dm.Layers = append(dm.Layers, blobPath(l.Digest))
		}
		raw, err := json.Marshal([]dockerManifest{dm})
		if err != nil {
			return nil, fmt.Errorf("archive %s: manifest.json: %w", name, err)
		}
		files["manifest.json"] = raw
	}
	return files, nil
}

func blobPath(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }

// writeTar writes the blob directories, the blobs sorted by digest, then
// files sorted by name.
func writeTar(w io.Writer, files map[string][]byte, blobs map[v1.Hash][]byte, created time.Time) error {
	mtime := created.UTC().Truncate(time.Second)
	tw := tar.NewWriter(w)
	for _, dir := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return fmt.Errorf("archive: %w", err)
		}
	}
	digests := make([]v1.Hash, 0, len(blobs))
	for h := range blobs {
		digests = append(digests, h)
	}
	sort.Slice(digests, func(i, j int) bool { return digests[i].String() < digests[j].String() })
	put := func(name string, data []byte) error {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("archive %s: %w", name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return fmt.Errorf("archive %s: %w", name, err)
		}
		return nil
	}
	for _, h := range digests {
		if err := put(blobPath(h), blobs[h]); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := put(n, files[n]); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	return nil
}
