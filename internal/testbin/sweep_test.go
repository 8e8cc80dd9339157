package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// sweep removes the directories of test processes that have ended, and
// only those.
func TestSweep_RemovesOnlyEndedProcessesDirs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("nothing is swept on Windows")
	}
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string) string {
		p, err := os.MkdirTemp("", name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(p) })
		return p
	}
	gone := mk(fmt.Sprintf("%s%d-", dirPrefix, ended.Process.Pid))
	mine := mk(fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	other := mk(dirPrefix + "notapid-")
	sweep()
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("%s (pid %d, ended) was not swept: %v", filepath.Base(gone), ended.Process.Pid, err)
	}
	for _, kept := range []string{mine, other} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s was swept: %v", filepath.Base(kept), err)
		}
	}
}
