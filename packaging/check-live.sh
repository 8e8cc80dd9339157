#!/usr/bin/env bash
# The corrosion-agent deb under a real systemd: make package-check runs it
# after check.sh's own checks, as root. It boots systemd in a container
# (systemd-nspawn over an overlay of this machine's root, private network;
# nothing reaches the machine itself) and, inside it:
#   - dpkg -i: the unit is loaded, neither enabled nor started;
#   - a config, then systemctl enable --now: the agent runs as corrosion,
#     connected to the container's nats-server, and starts its game;
#   - dpkg -i of the deb again (the upgrade path): the postinst restarts
#     the agent, the game keeps its PID and the new agent adopts it;
#   - dpkg -r: the agent is stopped and disabled, the game still runs;
#   - dpkg --purge: config and state gone, the game's root kept.
# Without systemd-nspawn or overlayfs it says so and exits 0, unless CI is
# set: then it fails. internal/systemdtest does the same for Go tests.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "package-check: live: FAIL: $*" >&2; exit 1; }
step() { echo "package-check: live: $*"; }

D='' NSPAWN='' INIT=''

unavailable() {
	[[ -z ${CI:-} ]] || fail "$1 (CI must be able to run this)"
	step "skipped: $1"
	exit 0
}

# inside runs a command inside the container (all its namespaces).
inside() { nsenter -t "$INIT" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

# until_true DESCRIPTION SECONDS COMMAND...: polls COMMAND (a function
# or a program) every 0.2 s until it succeeds, failing after SECONDS.
until_true() {
	local what=$1 secs=$2 end=$((SECONDS + $2))
	shift 2
	until "$@" >/dev/null 2>&1; do
		((SECONDS < end)) || fail "not within ${secs}s: $what"
		sleep 0.2
	done
}

cleanup() {
	local i
	if [[ -n $NSPAWN ]] && kill -0 "$NSPAWN" 2>/dev/null; then
		[[ -z $INIT ]] || inside systemctl poweroff --no-block >/dev/null 2>&1 || true
		for ((i = 0; i < 100; i++)); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.2; done
		kill -TERM "$NSPAWN" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$NSPAWN" 2>/dev/null || true
		wait "$NSPAWN" 2>/dev/null || true
	fi
	if [[ -n $D ]]; then
		umount "$D/root" 2>/dev/null || umount -l "$D/root" 2>/dev/null || true
		mountpoint -q "$D/root" || rm -rf "$D"
	fi
}

boot() {
	command -v systemd-nspawn >/dev/null || unavailable "no systemd-nspawn (apt-get install systemd-container)"
	command -v nsenter >/dev/null || unavailable "no nsenter"
	D=$(mktemp -d /tmp/corrosion-live.XXXXXX)
	trap cleanup EXIT
	mkdir "$D/up" "$D/work" "$D/root"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$D/up,workdir=$D/work" "$D/root" ||
		unavailable "cannot mount an overlay of /"
	# A real host has no policy-rc.d; this machine's image may forbid every
	# service action with one (the scripts' pkgtest covers that case).
	rm -f "$D/root/usr/sbin/policy-rc.d"
	step "boot systemd in a container"
	systemd-nspawn --quiet --keep-unit --register=no --link-journal=no --private-network --console=pipe \
		--boot --directory="$D/root" --machine="corrosion-live-$$" </dev/null >"$D/nspawn.log" 2>&1 &
	NSPAWN=$!
	local end=$((SECONDS + 30))
	until INIT=$(pgrep -P "$NSPAWN" -x systemd); do
		kill -0 "$NSPAWN" 2>/dev/null || fail "systemd-nspawn exited: $(cat "$D/nspawn.log")"
		((SECONDS < end)) || fail "no container init after 30s: $(cat "$D/nspawn.log")"
		sleep 0.2
	done
	until_true "the container's systemd is running" 60 booted
}

booted() { inside systemctl is-system-running | grep -Eqx 'running|degraded'; }

# game_pid is the game's PID (in the container) as the agent recorded it.
game_pid() {
	sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' "$D/root/var/lib/corrosion-agent/instances/game1/state.json" 2>/dev/null | head -n1
}
has_game() { [[ -n $(game_pid) ]]; }
main_pid() { inside systemctl show -P MainPID corrosion-agent.service; }
new_agent() { local p; p=$(main_pid); [[ $p != 0 && $p != "$1" ]]; } # a main PID other than $1
runs() { inside kill -0 "$1"; }
journal() { inside journalctl --no-pager -o cat -u corrosion-agent.service; }
journal_has() { journal | grep -qF -- "$1"; }
adopted() { journal | grep -F 'msg="adopted running instance"' | grep -F ' instance=game1 ' | grep -q " pid=$1\b"; }

install_and_start() {
	local deb=$1
	step "dpkg -i $(basename "$deb")"
	inside dpkg -i /opt/corrosion-live/agent.deb >/dev/null
	[[ $(inside systemctl is-enabled corrosion-agent.service || true) == disabled ]] || fail "the package enabled the agent"
	[[ $(inside systemctl is-active corrosion-agent.service || true) == inactive ]] || fail "the package started the agent"
	[[ $(inside systemctl show -P NeedDaemonReload corrosion-agent.service) == no ]] || fail "the unit is not loaded"

	step "configure, then systemctl enable --now"
	inside systemctl start nats-server.service
	inside install -d -m 0750 -o corrosion -g corrosion /srv/corrosion/game1
	cat >"$D/root/etc/corrosion/agent.toml" <<-'EOF'
		[agent]
		license_id = "ci"
		nats_url = "nats://127.0.0.1:4222"

		[[instance]]
		id = "game1"
		game = "generic"
		root = "/srv/corrosion/game1"
		exec = "/bin/sleep"
		args = ["infinity"]
		autostart = true
	EOF
	inside chown root:corrosion /etc/corrosion/agent.toml
	inside chmod 0640 /etc/corrosion/agent.toml
	inside runuser -u corrosion -- corrosion-agent validate --config /etc/corrosion/agent.toml >/dev/null
	inside systemctl enable --now corrosion-agent.service
	until_true "the agent connects to the container's nats-server" 20 journal_has 'msg="nats connected"'
	until_true "the game is started" 20 has_game
	[[ $(inside ps -o user= -p "$(main_pid)") == corrosion ]] || fail "the agent does not run as corrosion"
	[[ $(inside ps -o user= -p "$(game_pid)") == corrosion ]] || fail "the game does not run as corrosion"
}

upgrade_keeps_the_game() {
	local agent game
	agent=$(main_pid) game=$(game_pid)
	step "dpkg -i again (the upgrade path): agent restarted, game $game kept and adopted"
	inside dpkg -i /opt/corrosion-live/agent.deb >/dev/null
	until_true "a new agent runs" 20 new_agent "$agent"
	until_true "the new agent adopts pid $game" 20 adopted "$game"
	runs "$game" || fail "the upgrade stopped the game"
	[[ $(game_pid) == "$game" ]] || fail "the game's PID changed: $(game_pid), was $game"
}

remove_keeps_the_game() {
	local game
	game=$(game_pid)
	step "dpkg -r: agent stopped and disabled, game $game still running"
	inside dpkg -r corrosion-agent >/dev/null
	[[ $(inside systemctl is-active corrosion-agent.service || true) == inactive ]] || fail "dpkg -r left the agent running"
	[[ -z $(compgen -G "$D/root/etc/systemd/system/*.wants/corrosion-agent.service") ]] || fail "dpkg -r left the agent enabled"
	runs "$game" || fail "dpkg -r stopped the game"

	step "dpkg --purge: config and state gone, the game's root kept"
	inside dpkg --purge corrosion-agent >/dev/null
	[[ ! -e $D/root/etc/corrosion/agent.toml && ! -e $D/root/var/lib/corrosion-agent ]] || fail "purge kept config or state"
	[[ -d $D/root/srv/corrosion/game1 ]] || fail "purge removed /srv/corrosion/game1"
	inside kill "$game"
}

main() {
	[[ $(id -u) == 0 ]] || fail "run as root"
	local deb
	deb=$(compgen -G "dist/corrosion-agent_*_$(dpkg --print-architecture).deb" | head -n1) ||
		fail "no corrosion-agent deb in dist/: run make packages first"
	boot
	install -D -m 0644 "$deb" "$D/root/opt/corrosion-live/agent.deb"
	install_and_start "$deb"
	upgrade_keeps_the_game
	remove_keeps_the_game
	step "ok"
}

main "$@"
