#!/bin/sh
# corrosion-agent before removal (deb prerm, rpm %preun): on removal only,
# stop and disable the service. An upgrade never stops it. The game servers
# keep running either way (KillMode=process).
set -e

case "$1" in
	remove | 0) ;; # deb: remove; rpm: 0 = erase (1 = upgrade)
	*) exit 0 ;;
esac

if [ -d /run/systemd/system ]; then
	systemctl stop corrosion-agent.service || true
fi
systemctl --no-reload disable corrosion-agent.service >/dev/null 2>&1 || true
exit 0
