package fleetui_test

import "os"

// exists reports whether a process with this pid exists (FindProcess opens
// it on Windows).
func exists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err == nil {
		_ = p.Release()
	}
	return err == nil
}
