package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "new" {
		t.Fatalf("read %q, %v; want new", b, err)
	}
	assertOnly(t, dir, "state.json")
}

func TestWritePrepareSeesTheTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "unit")
	err := Write(p, []byte("x"), func(tmp string) error {
		if filepath.Dir(tmp) != dir || tmp == p {
			t.Errorf("prepare got %s; want a temporary file in %s", tmp, dir)
		}
		return os.Chmod(tmp, 0o640)
	})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v; want 0640 set by prepare", fi.Mode().Perm())
	}
}

func TestWriteFailureLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "conf")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(p, []byte("new"), func(string) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v; want boom", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "old" {
		t.Fatalf("file %q after a failed write; want old", b)
	}
	assertOnly(t, dir, "conf")
}

func TestWriteMissingDirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "such", "file")
	if err := Write(p, []byte("x"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err %v; want not exist", err)
	}
}

// assertOnly fails unless dir holds exactly name (no temporary file left).
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Name() != name {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Fatalf("dir holds %v; want only %s", names, name)
	}
}
