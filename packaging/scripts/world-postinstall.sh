#!/bin/sh
# corrosion-world after unpacking (deb postinst, rpm %post): /etc/corrosion
# and a daemon-reload. Never enables, starts or restarts a world: a restart
# disconnects its players, so on upgrade each running world keeps the old
# binary until its operator restarts it.
set -e

case "$1" in
	configure | 1 | 2) ;; # deb: configure; rpm: 1 install, 2 upgrade
	*) exit 0 ;;
esac

[ -d /etc/corrosion ] || install -d -m 0755 -o root -g root /etc/corrosion

if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi

if [ ! -e /etc/corrosion/world.env ]; then
	cat <<'MSG'
corrosion-world is installed; no world is enabled. Next:
  1. install -m 0640 -o root -g corrosion-world /usr/share/doc/corrosion-world/examples/world.env /etc/corrosion/world.env
  2. editor /etc/corrosion/world.env         # RS_DB_*, RS_CLUSTER_HOSTS, WORLD_ARGS
  3. systemctl enable --now corrosion-world@10     # node 10 = world 1
MSG
else
	echo "corrosion-world: running worlds keep the old version until restarted (systemctl restart corrosion-world@N)."
fi
exit 0
