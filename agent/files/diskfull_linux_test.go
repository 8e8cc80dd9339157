package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

// mountTiny mounts a 1 MiB tmpfs on a fresh directory and returns it,
// unmounted in Cleanup. It needs root (the tests run as root); a refused
// mount fails the test.
func mountTiny(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	must(t, os.Mkdir(dir, 0o755))
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mount a 1 MiB tmpfs on %s (the test needs root): %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// An archive that fills the disk: fm_extract fails (internal, as on the
// wire before) with the cause kept, so errors.Is(err, syscall.ENOSPC) and
// IsDiskFull hold, and the file that did not fit is not left half-written.
func TestExtract_DiskFullKeepsCause(t *testing.T) {
	root := mountTiny(t)
	zipOf(t, filepath.Join(root, "big.zip"), []zipEntry{
		{name: "small.txt", body: "fits"},
		{name: "big.bin", body: strings.Repeat("\x00", 4<<20)},
	})
	m, err := New(root, nil, Limits{}, testLogger(t))
	must(t, err)
	_, werr := callManager(t, m, wire.FuncFMExtract, map[string]any{"path": "big.zip", "to": "out"})
	if werr == nil {
		t.Fatal("extracting 4 MiB onto a 1 MiB file system succeeded")
	}
	if werr.Code != wire.CodeInternal || !strings.Contains(werr.Msg, "no space left on device") {
		t.Errorf("error %s %q", werr.Code, werr.Msg)
	}
	if !errors.Is(werr, syscall.ENOSPC) || !IsDiskFull(werr) {
		t.Errorf("the cause of %q was lost (errors.Is ENOSPC %v, IsDiskFull %v)", werr.Msg, errors.Is(werr, syscall.ENOSPC), IsDiskFull(werr))
	}
	if _, err := os.Stat(filepath.Join(root, "out", "big.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("big.bin left behind: %v", err)
	}
	if IsDiskFull(errors.New("no space left on device")) {
		t.Error("IsDiskFull matched an error by its text")
	}
}
