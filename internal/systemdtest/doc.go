// Package systemdtest boots a real systemd for tests (Linux, root): a
// container started by systemd-nspawn over an overlay of the machine's own
// root file system, so systemctl, journalctl and unit files can be driven
// for real and thrown away afterwards. Imported only by tests.
package systemdtest
