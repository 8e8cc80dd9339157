package childproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindBinary: a program beside the running executable wins over PATH;
// else PATH; else an error naming both places and the fix.
func TestFindBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	onPath := t.TempDir()
	t.Setenv("PATH", onPath)
	writeExe := func(dir, name string) string {
		p := filepath.Join(dir, ExeName(name))
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(p) })
		return p
	}
	pathOnly := writeExe(onPath, "childproc-test-path")
	if got, err := FindBinary("childproc-test-path"); err != nil || got != pathOnly {
		t.Errorf("on PATH only: %q, %v", got, err)
	}
	writeExe(onPath, "childproc-test-both")
	beside := writeExe(filepath.Dir(exe), "childproc-test-both")
	if got, err := FindBinary("childproc-test-both"); err != nil || got != beside {
		t.Errorf("beside the executable and on PATH: %q, %v; want %q", got, err, beside)
	}
	_, err = FindBinary("childproc-test-nowhere")
	if err == nil || !strings.Contains(err.Error(), "next to this executable") || !strings.Contains(err.Error(), "make build") {
		t.Errorf("missing: %v", err)
	}
}
