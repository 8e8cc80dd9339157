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

if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
	[ -z "$upgrade" ] || systemctl try-restart corrosion-panel.service || true
fi

if [ ! -e /etc/corrosion/panel.env ]; then
	cat <<'MSG'
corrosion-panel is installed but not enabled. Next:
    install -m 0640 -o root -g corrosion-panel /usr/share/doc/corrosion-panel/examples/panel.env /etc/corrosion/panel.env
    editor /etc/corrosion/panel.env         # DATABASE_URL, NATS_URL, ...
    set -a; . /etc/corrosion/panel.env; set +a; corrosion-panel migrate
    systemctl enable --now corrosion-panel
MSG
fi
exit 0
