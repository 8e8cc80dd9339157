#!/bin/sh
# corrosion-panel after unpacking (deb postinst, rpm %post): /etc/corrosion,
# a daemon-reload, and on upgrade a restart of a running panel (sessions and
# state live in Postgres: nothing is lost). Never enables or starts it: that
# waits until /etc/corrosion/panel.env is written.
set -e

case "$1" in
	configure) upgrade="$2" ;; # deb: the version replaced, "" on a first install
	1) upgrade= ;;             # rpm: first install
	2) upgrade=rpm ;;          # rpm: upgrade
	*) exit 0 ;;
esac

[ -d /etc/corrosion ] || install -d -m 0755 -o root -g root /etc/corrosion

# Debian and Ubuntu: deb-systemd-invoke, which honours policy-rc.d (chroots
# and image builds forbid service actions with it). RPM systems: systemctl.
invoke=systemctl
command -v deb-systemd-invoke >/dev/null 2>&1 && invoke=deb-systemd-invoke

if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
	[ -z "$upgrade" ] || $invoke try-restart corrosion-panel.service || true
fi

if [ ! -e /etc/corrosion/panel.env ]; then
	cat <<'MSG'
corrosion-panel is installed but not enabled. Next:
  1. install -m 0640 -o root -g corrosion-panel /usr/share/doc/corrosion-panel/examples/panel.env /etc/corrosion/panel.env
  2. editor /etc/corrosion/panel.env         # DATABASE_URL, NATS_URL, ...
  3. set -a; . /etc/corrosion/panel.env; set +a; corrosion-panel migrate
  4. systemctl enable --now corrosion-panel
MSG
fi
exit 0
