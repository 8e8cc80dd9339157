#!/bin/sh
# corrosion-world before removal (deb prerm, rpm %preun): on removal only,
# stop and disable every corrosion-world@N (their binaries are going away).
# An upgrade never stops a world.
set -e

case "$1" in
	remove | 0) ;; # deb: remove; rpm: 0 = erase (1 = upgrade)
	*) exit 0 ;;
esac

if [ -d /run/systemd/system ]; then
	systemctl stop 'corrosion-world@*.service' || true
fi
# Disabling the template disables every enabled instance.
systemctl --no-reload disable corrosion-world@.service >/dev/null 2>&1 || true
exit 0
