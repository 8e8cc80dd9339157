//go:build !windows

package telemetry

// localDrive is true off Windows: the filesystem type tells local from
// remote there (see skipFSTypes).
func localDrive(string) bool { return true }
