#!/bin/sh
# corrosion-panel before unpacking (deb preinst, rpm %pre): the system user
# and group `corrosion-panel` its service runs as.
set -e

case "$1" in
	install | upgrade | 1 | 2) ;; # deb: install/upgrade; rpm: 1 install, 2 upgrade
	*) exit 0 ;;
esac

nologin=/usr/sbin/nologin
[ -x "$nologin" ] || nologin=/sbin/nologin
getent group corrosion-panel >/dev/null || groupadd --system corrosion-panel
getent passwd corrosion-panel >/dev/null ||
	useradd --system --gid corrosion-panel --home-dir /nonexistent --no-create-home \
		--shell "$nologin" --comment "Corrosion panel" corrosion-panel
exit 0
