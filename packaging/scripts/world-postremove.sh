#!/bin/sh
# corrosion-world after removal (deb postrm, rpm %postun). Removal keeps
# /etc/corrosion/world.env, world-N.env and the user; a deb purge deletes
# those files. The worlds' data lives in Postgres and is never touched.
set -e

if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi

if [ "$1" = purge ]; then
	rm -f /etc/corrosion/world.env /etc/corrosion/world-*.env
	rmdir /etc/corrosion 2>/dev/null || true
fi
exit 0
