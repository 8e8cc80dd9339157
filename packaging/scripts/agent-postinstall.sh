#!/bin/sh
# corrosion-agent after unpacking (deb postinst, rpm %post): its directories,
# a daemon-reload, and on upgrade a restart of a running agent. Never enables
# or starts the service: that waits until /etc/corrosion/agent.toml is written.
set -e

case "$1" in
	configure) upgrade="$2" ;; # deb: the version replaced, "" on a first install
	1) upgrade= ;;             # rpm: first install
	2) upgrade=rpm ;;          # rpm: upgrade
	*) exit 0 ;;
esac

# Created with these owners and modes when missing; never changed after.
[ -d /etc/corrosion ] || install -d -m 0755 -o root -g root /etc/corrosion
[ -d /var/lib/corrosion-agent ] || install -d -m 0750 -o corrosion -g corrosion /var/lib/corrosion-agent
[ -d /srv/corrosion ] || install -d -m 0750 -o corrosion -g corrosion /srv/corrosion

# Debian and Ubuntu: deb-systemd-invoke, which honours policy-rc.d (chroots
# and image builds forbid service actions with it). RPM systems: systemctl.
invoke=systemctl
command -v deb-systemd-invoke >/dev/null 2>&1 && invoke=deb-systemd-invoke

if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
	# KillMode=process: the restart replaces only the agent; the game
	# servers keep running and the new agent adopts them.
	[ -z "$upgrade" ] || $invoke try-restart corrosion-agent.service || true
fi

if [ ! -e /etc/corrosion/agent.toml ]; then
	cat <<'MSG'
corrosion-agent is installed but not enabled. Next:
  1. install -m 0640 -o root -g corrosion /usr/share/doc/corrosion-agent/examples/agent.toml /etc/corrosion/agent.toml
  2. editor /etc/corrosion/agent.toml        # license_id, nats_url, your game servers
  3. runuser -u corrosion -- corrosion-agent validate --config /etc/corrosion/agent.toml
  4. systemctl enable --now corrosion-agent
MSG
fi
exit 0
