#!/bin/sh
# corrosion-agent after removal (deb postrm, rpm %postun). Removal keeps the
# configuration (/etc/corrosion/agent.toml, agent.env), the agent's state
# (/var/lib/corrosion-agent), the game data (/srv/corrosion) and the user.
# A deb purge deletes the configuration and the state; never the game data
# or the user (files in /srv/corrosion may still belong to it).
set -e

if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi

if [ "$1" = purge ]; then
	rm -f /etc/corrosion/agent.toml /etc/corrosion/agent.env
	rm -rf /var/lib/corrosion-agent
	rmdir /etc/corrosion 2>/dev/null || true
fi
exit 0
