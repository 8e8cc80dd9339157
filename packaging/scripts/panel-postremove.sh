#!/bin/sh
# corrosion-panel after removal (deb postrm, rpm %postun). Removal keeps
# /etc/corrosion/panel.env and the user; a deb purge deletes panel.env. The
# panel's data lives in Postgres and is never touched.
set -e

if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi

if [ "$1" = purge ]; then
	rm -f /etc/corrosion/panel.env
	rmdir /etc/corrosion 2>/dev/null || true
fi
exit 0
