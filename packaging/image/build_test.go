package image

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// tinySpec is an image of small in-memory files, for the assembly tests.
func tinySpec(arch string) Spec {
	return Spec{Name: "tiny", Description: "test", Entrypoint: []string{"/usr/bin/tiny"}, Ports: []string{"1/tcp"},
		Layers: [][]File{
			{{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0::/:/sbin/nologin\n")}},
			{{Path: "/usr/bin/tiny", Mode: 0o755, Data: []byte("binary for " + arch)}},
		}}
}

func TestWriteArchive_MultiPlatform(t *testing.T) {
	var images []Built
	for _, arch := range []string{"amd64", "arm64"} {
		b, err := Build(tinySpec(arch), testMeta, Platform{"linux", arch})
		if err != nil {
			t.Fatal(err)
		}
		images = append(images, b)
	}
	path := filepath.Join(t.TempDir(), "tiny.oci.tar")
	var buf bytes.Buffer
	if err := WriteArchive(&buf, "tiny", testMeta, images); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := readArchive(t, path)
	if r.Top.MediaType != types.OCIImageIndex || r.Top.Annotations[AnnotationRefName] != "tiny:9.8.7-test" || r.Docker != nil {
		t.Fatalf("index.json entry %+v, manifest.json %v: want a named image index and no Docker manifest", r.Top, r.Docker)
	}
	read := r.Images
	if len(read) != 2 || read[0].Platform.Architecture != "amd64" || read[1].Platform.Architecture != "arm64" || read[1].Platform.Variant != "v8" {
		t.Fatalf("platforms %+v", read)
	}
	if read[0].Manifest.Layers[0].Digest != read[1].Manifest.Layers[0].Digest {
		t.Fatalf("the same base files gave two layer digests")
	}
	for i, arch := range []string{"amd64", "arm64"} {
		if got := string(read[i].Files["usr/bin/tiny"].Data); got != "binary for "+arch || read[i].Config.Architecture != arch {
			t.Errorf("%s image holds %q, config says %s", arch, got, read[i].Config.Architecture)
		}
	}
	blobs, err := os.ReadDir(filepath.Join(r.Dir, "blobs", "sha256"))
	if err != nil {
		t.Fatal(err)
	}
	if len(blobs) != 8 { // index, 2 manifests, 2 configs, 1 shared base layer, 2 binary layers
		t.Errorf("%d blobs, want 8 (the shared base layer once)", len(blobs))
	}
}

func TestBuild_SameInputsSameDigest(t *testing.T) {
	digest := func(m Meta) v1.Hash {
		t.Helper()
		b, err := Build(tinySpec("amd64"), m, Platform{"linux", "amd64"})
		if err != nil {
			t.Fatal(err)
		}
		h, err := b.Image.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	a, b := digest(testMeta), digest(testMeta)
	if a != b {
		t.Fatalf("two builds of the same inputs: %s and %s", a, b)
	}
	later := testMeta
	later.Created = later.Created.Add(time.Hour)
	if digest(later) == a {
		t.Fatalf("another build time gave the same digest")
	}
}

func TestBuild_Refuses(t *testing.T) {
	p := Platform{"linux", "amd64"}
	withFiles := func(files ...File) Spec { s := tinySpec("amd64"); s.Layers = [][]File{files}; return s }
	cases := []struct {
		name string
		spec Spec
		meta func(*Meta)
		want string
	}{
		{"relative path", withFiles(File{Path: "usr/bin/x", Mode: 0o755}), nil, `"usr/bin/x": not a clean absolute path`},
		{"unclean path", withFiles(File{Path: "/usr/../etc/x", Mode: 0o644}), nil, "not a clean absolute path"},
		{"root", withFiles(File{Path: "/", Mode: fs.ModeDir | 0o755}), nil, "not a clean absolute path"},
		{"twice", withFiles(File{Path: "/x", Mode: 0o644}, File{Path: "/x", Mode: 0o644}), nil, `"/x": listed twice`},
		{"missing source", withFiles(File{Path: "/usr/bin/x", Mode: 0o755, Source: "/nonexistent/x"}), nil, "/nonexistent/x"},
		{"version not a tag", tinySpec("amd64"), func(m *Meta) { m.Version = "1.0+build" }, `version "1.0+build" is not a tag`},
		{"empty version", tinySpec("amd64"), func(m *Meta) { m.Version = "" }, "is not a tag"},
		{"commit with a space", tinySpec("amd64"), func(m *Meta) { m.Commit = "abc -X x=y" }, "has spaces or quotes"},
		{"no time", tinySpec("amd64"), func(m *Meta) { m.Created = time.Time{} }, "created time is not set"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := testMeta
			if c.meta != nil {
				c.meta(&m)
			}
			_, err := Build(c.spec, m, p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Build: %v; want an error naming %q", err, c.want)
			}
			if c.meta != nil && !errors.Is(err, ErrMeta) {
				t.Fatalf("Build: %v is not ErrMeta", err)
			}
		})
	}
}

func TestParsePlatform(t *testing.T) {
	for _, s := range []string{"linux/amd64", " linux/arm64 "} {
		if _, err := ParsePlatform(s); err != nil {
			t.Errorf("ParsePlatform(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "linux", "windows/amd64", "linux/386", "linux/arm64/v8"} {
		if _, err := ParsePlatform(s); err == nil {
			t.Errorf("ParsePlatform(%q) accepted", s)
		}
	}
}
