#!/bin/sh
# corrosion-world before unpacking (deb preinst, rpm %pre): the system user
# and group `corrosion-world` its service runs as.
set -e

case "$1" in
	install | upgrade | 1 | 2) ;; # deb: install/upgrade; rpm: 1 install, 2 upgrade
	*) exit 0 ;;
esac

nologin=/usr/sbin/nologin
[ -x "$nologin" ] || nologin=/sbin/nologin
getent group corrosion-world >/dev/null || groupadd --system corrosion-world
getent passwd corrosion-world >/dev/null ||
	useradd --system --gid corrosion-world --home-dir /nonexistent --no-create-home \
		--shell "$nologin" --comment "Corrosion world server" corrosion-world
exit 0
