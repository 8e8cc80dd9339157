#!/bin/sh
# corrosion-agent before unpacking (deb preinst, rpm %pre): the system user
# and group `corrosion` the agent and its game servers run as.
set -e

case "$1" in
	install | upgrade | 1 | 2) ;; # deb: install/upgrade; rpm: 1 install, 2 upgrade
	*) exit 0 ;;
esac

nologin=/usr/sbin/nologin
[ -x "$nologin" ] || nologin=/sbin/nologin
getent group corrosion >/dev/null || groupadd --system corrosion
getent passwd corrosion >/dev/null ||
	useradd --system --gid corrosion --home-dir /var/lib/corrosion-agent --no-create-home \
		--shell "$nologin" --comment "Corrosion agent" corrosion
exit 0
