#!/bin/sh
# corrosion-panel before removal (deb prerm, rpm %preun): on removal only,
# stop and disable the service; an upgrade leaves it to the postinstall.
set -e

case "$1" in
	remove | 0) ;; # deb: remove; rpm: 0 = erase (1 = upgrade)
	*) exit 0 ;;
esac

# Debian and Ubuntu: deb-systemd-invoke, which honours policy-rc.d (chroots
# and image builds forbid service actions with it). RPM systems: systemctl.
invoke=systemctl
command -v deb-systemd-invoke >/dev/null 2>&1 && invoke=deb-systemd-invoke

if [ -d /run/systemd/system ]; then
	$invoke stop corrosion-panel.service || true
fi
# systemctl disable, not deb-systemd-helper: the operator enabled the unit
# with systemctl, and deb-systemd-helper undoes only what it enabled itself.
systemctl --no-reload disable corrosion-panel.service >/dev/null 2>&1 || true
exit 0
