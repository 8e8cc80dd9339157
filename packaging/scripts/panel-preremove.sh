#!/bin/sh
# corrosion-panel before removal (deb prerm, rpm %preun): on removal only,
# stop and disable the service; an upgrade leaves it to the postinstall.
set -e

case "$1" in
	remove | 0) ;; # deb: remove; rpm: 0 = erase (1 = upgrade)
	*) exit 0 ;;
esac

if [ -d /run/systemd/system ]; then
	systemctl stop corrosion-panel.service || true
fi
systemctl --no-reload disable corrosion-panel.service >/dev/null 2>&1 || true
exit 0
