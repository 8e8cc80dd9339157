package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/corrosion/corrosion/agent/template"
)

// An archive that does not fit on the instance's file system (a 1 MiB
// tmpfs, mounted for the test as root; a refused mount fails it): the
// install fails with install_disk_full, found by the extractor's kept cause
// (ENOSPC), and leaves the root as it was.
func TestInstall_ExtractDiskFull(t *testing.T) {
	r := newRig(t, "", 0)
	r.root = filepath.Join(t.TempDir(), "tiny")
	if err := os.Mkdir(r.root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", r.root, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mount a 1 MiB tmpfs on %s (the test needs root): %v", r.root, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(r.root, 0); err != nil {
			t.Errorf("unmount %s: %v", r.root, err)
		}
	})
	writeFile(t, filepath.Join(r.root, "keep.txt"), "kept")
	before := tree(t, r.root)
	b := zipOf(t, map[string]string{"small.txt": "fits", "big.bin": strings.Repeat("\x00", 4<<20)})
	spec := template.Spec{Sources: []template.Source{{HTTP: &template.HTTP{URL: r.rel.file("/f/big.zip", b), SHA256: sum(b), Extract: template.ExtractZip}}}}
	_, err := r.in.Install(context.Background(), r.job(spec))
	if Code(err) != CodeDiskFull || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("code %q (%v), want %s with ENOSPC as its cause", Code(err), err, CodeDiskFull)
	}
	if after := tree(t, r.root); !equalTrees(before, after) {
		t.Errorf("root changed:\nbefore %v\nafter  %v", before, after)
	}
}
