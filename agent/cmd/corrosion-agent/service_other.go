//go:build !windows

package main

// runService: only Windows has a service control manager that starts the
// agent through this entry (service_windows.go); systemd runs `run`.
func runService([]string) (int, bool) { return 0, false }
