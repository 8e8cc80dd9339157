package telemetry

import "golang.org/x/sys/windows"

// localDrive reports whether a drive is local storage: fixed or removable,
// not a mapped network share, CD-ROM or RAM disk.
func localDrive(mountpoint string) bool {
	p, err := windows.UTF16PtrFromString(mountpoint + `\`)
	if err != nil {
		return false
	}
	switch windows.GetDriveType(p) {
	case windows.DRIVE_FIXED, windows.DRIVE_REMOVABLE:
		return true
	}
	return false
}
