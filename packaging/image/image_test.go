package image

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/testbin"
	gname "github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// testMeta is what the tests build with.
var testMeta = Meta{Version: "9.8.7-test", Commit: "c0ffee123456", Created: time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC),
	Source: "https://github.com/corrosion/corrosion", Licenses: "LicenseRef-Corrosion-unpublished"}

// TestMkimage_RealImages runs mkimage as `make images` does (built
// without the race detector, which makes compressing ~55 MB of binaries
// twenty times slower) and reads both images back: run configuration,
// user, ports, labels, health check, the binaries (static, executable, the
// right build), /etc/passwd.
func TestMkimage_RealImages(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	mkimage := filepath.Join(t.TempDir(), "mkimage")
	build := exec.CommandContext(ctx, "go", "build", "-o", mkimage, "./packaging/image/mkimage")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build mkimage: %v\n%s", err, out)
	}
	out := t.TempDir()
	start := time.Now()
	run := exec.CommandContext(ctx, mkimage, "-version", testMeta.Version, "-commit", testMeta.Commit,
		"-created", testMeta.Created.Format(time.RFC3339), "-out", out, "-work", t.TempDir(), "-root", root)
	if log, err := run.CombinedOutput(); err != nil {
		t.Fatalf("mkimage: %v\n%s", err, log)
	}
	t.Logf("mkimage built both images in %v", time.Since(start).Round(time.Millisecond))
	paths := []string{filepath.Join(out, "corrosion-panel-9.8.7-test.oci.tar"), filepath.Join(out, "corrosion-world-9.8.7-test.oci.tar")}
	bins, binDir := map[string]string{}, t.TempDir() // image name -> its entrypoint, taken from the image
	t.Run("panel", func(t *testing.T) {
		img := checkArchive(t, paths[0], PanelName)
		checkRun(t, img, []string{"/usr/bin/corrosion-panel"}, []string{"serve"}, []string{"7780/tcp"})
		if !slices.Contains(img.Config.Config.Env, "CORROSION_PANEL_LISTEN=0.0.0.0:7780") {
			t.Errorf("env %v: the panel must listen on every address in a container", img.Config.Config.Env)
		}
		bins[PanelName] = checkBinary(t, img, "usr/bin/corrosion-panel", binDir)
		runVersion(t, bins[PanelName], "corrosion-panel")
		checkHealthURL(t, img, bins[PanelName], "http://127.0.0.1:7780/healthz")
	})
	t.Run("world", func(t *testing.T) {
		img := checkArchive(t, paths[1], WorldName)
		checkRun(t, img, []string{"/usr/bin/worldsrv"}, nil, []string{"43594/tcp", "8080/tcp"})
		bins[WorldName] = checkBinary(t, img, "usr/bin/worldsrv", binDir)
		runVersion(t, bins[WorldName], "worldsrv")
		checkHealthURL(t, img, bins[WorldName], "http://127.0.0.1:8080/ready")
		checkBinary(t, img, "usr/bin/ether", binDir) // beside worldsrv: where --ether spawn looks first
	})
	t.Run("compose commands", func(t *testing.T) {
		if len(bins) != 2 {
			t.Fatal("no binaries from the images")
		}
		checkComposeCommands(t, bins)
	})
}

// checkArchive reads path and checks what both images share: one amd64
// image named name, the labels, the user, the base files.
func checkArchive(t *testing.T, path, name string) readImage {
	t.Helper()
	r := readArchive(t, path)
	if len(r.Images) != 1 || r.Images[0].Platform.OS != "linux" || r.Images[0].Platform.Architecture != "amd64" {
		t.Fatalf("want one linux/amd64 image, got %d", len(r.Images))
	}
	img := r.Images[0]
	if got := r.Top.Annotations[AnnotationContainerdName]; got != "docker.io/library/"+name+":9.8.7-test" {
		t.Errorf("index.json names the image %q", got)
	}
	if d := r.Docker; len(d) != 1 || !slices.Equal(d[0].RepoTags, []string{name + ":9.8.7-test", name + ":latest"}) ||
		d[0].Config != "blobs/sha256/"+img.Manifest.Config.Digest.Hex || len(d[0].Layers) != len(img.Manifest.Layers) {
		t.Errorf("manifest.json %+v does not name the OCI manifest's blobs", d)
	}
	checkDockerView(t, path, name, img)
	labels := img.Config.Config.Labels
	for k, v := range map[string]string{LabelTitle: name, LabelVersion: "9.8.7-test", LabelRevision: "c0ffee123456",
		LabelCreated: "2026-11-24T05:00:00Z", LabelSource: testMeta.Source, LabelLicenses: testMeta.Licenses} {
		if labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, labels[k], v)
		}
	}
	if !img.Config.Created.Equal(testMeta.Created) {
		t.Errorf("config created %v", img.Config.Created)
	}
	if u := img.Config.Config.User; u != "10001:10001" {
		t.Errorf("user %q, want 10001:10001 (not root)", u)
	}
	passwd := string(img.Files["etc/passwd"].Data)
	if !strings.Contains(passwd, "\ncorrosion:x:10001:10001:") || !strings.Contains(string(img.Files["etc/group"].Data), "corrosion:x:10001:") {
		t.Errorf("/etc/passwd lacks the user:\n%s", passwd)
	}
	certs := img.Files["etc/ssl/certs/ca-certificates.crt"].Data
	if !bytes.Contains(certs, []byte("BEGIN CERTIFICATE")) {
		t.Errorf("no CA certificates in the image")
	}
	home := img.Files["var/lib/corrosion"].Header
	if home == nil || home.Uid != UID || img.Config.Config.WorkingDir != HomeDir {
		t.Errorf("the working directory %s is not the user's: %+v", img.Config.Config.WorkingDir, home)
	}
	return img
}

// checkDockerView reads path as `docker load` without the containerd
// image store does, through manifest.json (go-containerregistry's tarball
// reader): the tag finds the OCI image's config and layers.
func checkDockerView(t *testing.T, path, name string, want readImage) {
	t.Helper()
	tag, err := gname.NewTag(name + ":latest")
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(path, &tag)
	if err != nil {
		t.Fatalf("%s as a docker-save archive: %v", path, err)
	}
	if err := validate.Image(img, validate.Fast); err != nil {
		t.Errorf("%s as a docker-save archive: %v", path, err)
	}
	cfg, err := img.ConfigName()
	if err != nil || cfg != want.Manifest.Config.Digest {
		t.Errorf("manifest.json's config %s (%v), the OCI manifest's %s", cfg, err, want.Manifest.Config.Digest)
	}
}

func checkRun(t *testing.T, img readImage, entrypoint, cmd, ports []string) {
	t.Helper()
	c := img.Config.Config
	if !slices.Equal(c.Entrypoint, entrypoint) || !slices.Equal(c.Cmd, cmd) {
		t.Errorf("entrypoint %q cmd %q, want %q %q", c.Entrypoint, c.Cmd, entrypoint, cmd)
	}
	var got []string
	for p := range c.ExposedPorts {
		got = append(got, p)
	}
	slices.Sort(got)
	ports = slices.Sorted(slices.Values(ports))
	if !slices.Equal(got, ports) {
		t.Errorf("exposed ports %v, want %v", got, ports)
	}
	if hc := c.Healthcheck; hc == nil || !slices.Equal(hc.Test, []string{"CMD", entrypoint[0], "healthcheck"}) {
		t.Errorf("health check %+v, want the binary's own healthcheck", hc)
	}
}

// checkBinary checks that the image's file at p is an executable, static
// x86-64 ELF and writes it to dir to run.
func checkBinary(t *testing.T, img readImage, p, dir string) string {
	t.Helper()
	f, ok := img.Files[p]
	if !ok {
		t.Fatalf("/%s missing", p)
	}
	if f.Header.Mode&0o111 != 0o111 || f.Header.Uid != 0 {
		t.Errorf("/%s mode %o owner %d: want executable by all, owned by root", p, f.Header.Mode, f.Header.Uid)
	}
	e, err := elf.NewFile(bytes.NewReader(f.Data))
	if err != nil {
		t.Fatalf("/%s: %v", p, err)
	}
	if e.Machine != elf.EM_X86_64 {
		t.Errorf("/%s is for %v", p, e.Machine)
	}
	for _, prog := range e.Progs {
		if prog.Type == elf.PT_INTERP {
			t.Errorf("/%s has an interpreter: not statically linked", p)
		}
	}
	path := filepath.Join(dir, filepath.Base(p))
	if err := os.WriteFile(path, f.Data, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runVersion runs the binary taken from the image: it must be this build.
func runVersion(t *testing.T, bin, name string) {
	t.Helper()
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), name+" 9.8.7-test") || !strings.Contains(string(out), "c0ffee123456") {
		t.Fatalf("%s version from the image: %q %v", name, out, err)
	}
}

// checkHealthURL runs the image's health check as the image would (its
// environment, its command) on the binary taken from it: it must look at
// the port the image serves on. Healthy or not depends on whether anything
// listens there on this machine; either way the output names the URL.
func checkHealthURL(t *testing.T, img readImage, bin, want string) {
	t.Helper()
	out, err := runWithEnv(bin, img.Config.Config.Env, img.Config.Config.Healthcheck.Test[2:]...)
	code := 0
	if e, ok := err.(*exec.ExitError); ok {
		code = e.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if (code != 0 && code != 1) || !strings.Contains(string(out), want) {
		t.Errorf("the image's health check: exit %d, output %q; want it to check %s", code, out, want)
	}
}
