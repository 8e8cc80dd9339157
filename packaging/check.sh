#!/usr/bin/env bash
# Checks the packages in dist/ (make packages) on this machine, as root:
#   - lintian on every deb: no errors, no warnings (overrides say why);
#   - corrosion-agent: dpkg -i; the files, user, directories and unit landed
#     and the unit is not enabled; the binary's version is the package's;
#     the example config, installed as /etc/corrosion/agent.toml, validates
#     as the service's user, and the agent run as that user with it connects
#     to a nats-server; a reinstall (the upgrade path) keeps the config;
#     dpkg -r keeps config, state and game data and removes the binary;
#     dpkg --purge deletes config and state but never the game data;
#   - corrosion-panel and corrosion-world: install, user and units, remove,
#     purge;
#   - with rpm installed: rpm -qip / -qlp / --scripts of every rpm, and each
#     installed by rpm into a scratch root, verified (rpm -V), run, erased;
#   - then packaging/check-live.sh: the agent's deb installed, upgraded and
#     removed under a real systemd booted in a container.
# It refuses to run where a corrosion package, user or directory already
# exists, and leaves the machine as it found it (trap on exit).
# `make package-check` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "package-check: FAIL: $*" >&2; exit 1; }
step() { echo "package-check: $*"; }

USERS=(corrosion corrosion-panel corrosion-world)
DIRS=(/etc/corrosion /var/lib/corrosion-agent /srv/corrosion)
PKGS=(corrosion-agent corrosion-panel corrosion-world)
WORK=''                 # logs and copies (made by main); removed by cleanup
AGENT_PID='' NATS_PID='' # processes this check started, stopped by cleanup
ARCH=$(dpkg --print-architecture)

deb_of() { # the deb of package $1 for this machine's architecture
	local f
	f=$(compgen -G "dist/$1_*_$ARCH.deb" | head -n1) || true
	[[ -n $f ]] || fail "no dist/$1_*_$ARCH.deb: run make packages first"
	echo "$f"
}

# owner group mode of a path, e.g. "corrosion corrosion 750".
stat_of() { stat -c '%U %G %a' "$1"; }

expect_stat() { # path "owner group mode"
	[[ -e $1 ]] || fail "$1 is missing"
	local got
	got=$(stat_of "$1")
	[[ $got == "$2" ]] || fail "$1 is $got, want $2"
}

expect_absent() { [[ ! -e $1 ]] || fail "$1 is still there"; }

# Leaves the machine as it was: every package purged, every user, group and
# directory the packages created removed (preflight made sure none existed).
cleanup() {
	local p u d pid
	for pid in "$AGENT_PID" "$NATS_PID"; do
		[[ -z $pid ]] || kill -TERM "$pid" 2>/dev/null || true
	done
	[[ -z $WORK ]] || rm -rf "$WORK"
	for p in "${PKGS[@]}"; do
		if dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null | grep -qv '^not-installed$'; then
			dpkg --purge "$p" >/dev/null 2>&1 || echo "package-check: cleanup: dpkg --purge $p failed" >&2
		fi
	done
	for u in "${USERS[@]}"; do
		getent passwd "$u" >/dev/null && userdel "$u"
		getent group "$u" >/dev/null && groupdel "$u"
	done
	for d in "${DIRS[@]}"; do
		rm -rf "$d"
	done
	return 0
}

preflight() {
	[[ $(id -u) == 0 ]] || fail "run as root (it installs and removes packages)"
	local need
	for need in dpkg lintian runuser setpriv; do
		command -v "$need" >/dev/null || fail "$need is required (apt install lintian)"
	done
	local p u d
	for p in "${PKGS[@]}"; do
		if dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null | grep -qv '^not-installed$'; then
			fail "$p is installed on this machine; this check installs and purges it, so it will not run here"
		fi
	done
	for u in "${USERS[@]}"; do
		! getent passwd "$u" >/dev/null || fail "user $u exists on this machine; refusing to run (it would delete it)"
		! getent group "$u" >/dev/null || fail "group $u exists on this machine; refusing to run (it would delete it)"
	done
	for d in "${DIRS[@]}"; do
		[[ ! -e $d ]] || fail "$d exists on this machine; refusing to run (it would delete it)"
	done
}

check_lintian() {
	local deb
	for deb in dist/*.deb; do
		step "lintian $deb"
		local out rc=0
		out=$(lintian --fail-on error,warning "$deb" 2>&1) || rc=$?
		grep -v '^running with root privileges' <<<"$out" || true
		((rc == 0)) || fail "lintian reports errors or warnings for $deb (exit $rc)"
	done
}

# The binary reports the version and commit the package's metadata names.
check_version() { # package binary
	local version desc commit got
	version=$(dpkg-query -W -f '${Version}' "$1")
	desc=$(dpkg-query -W -f '${Description}' "$1")
	commit=$(sed -n 's/.*, commit \([^,]*\), built .*/\1/p' <<<"$desc")
	[[ -n $commit ]] || fail "$1's description names no commit: $desc"
	got=$("$2" --version)
	version=${version%-*}      # without the package release
	version=${version//\~/-}   # 0.1.0~dev is 0.1.0-dev
	[[ $got == *" $version "* && $got == *"commit $commit,"* ]] ||
		fail "$2 --version says \"$got\"; the package is $version, commit $commit"
	step "$1 $version, commit $commit: $got"
}

# Waits up to 20 s for a line matching pattern in file.
wait_for_line() { # file pattern what
	local i
	for ((i = 0; i < 200; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no $3 within 20 s: $(cat "$1" 2>/dev/null)"
}

# The installed agent runs as its unit runs it (as corrosion, with the
# config the operator wrote) and connects to a NATS server: Debian's
# nats-server on a free port, named in the config as an operator would.
check_agent_runs() { # config
	local nats port
	nats=$(command -v nats-server || echo /usr/sbin/nats-server)
	[[ -x $nats ]] || fail "nats-server is required (apt install nats-server)"
	"$nats" -a 127.0.0.1 -p -1 -l "$WORK/nats.log" &
	NATS_PID=$!
	wait_for_line "$WORK/nats.log" "Listening for client connections on 127.0.0.1:" "NATS server"
	port=$(sed -n 's/.*Listening for client connections on 127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/nats.log" | head -n1)
	sed -i "s#^nats_url = .*#nats_url = \"nats://127.0.0.1:$port\"#" "$1"
	step "corrosion-agent run as corrosion against nats://127.0.0.1:$port"
	setpriv --reuid=corrosion --regid=corrosion --init-groups \
		/usr/bin/corrosion-agent run --config "$1" >"$WORK/agent.log" 2>&1 &
	AGENT_PID=$!
	wait_for_line "$WORK/agent.log" 'msg="nats connected"' "\"nats connected\" from the agent"
	[[ $(ps -o user= -p "$AGENT_PID") == corrosion ]] || fail "the agent does not run as corrosion"
	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID" || fail "the agent exited with $? on SIGTERM: $(cat "$WORK/agent.log")"
	AGENT_PID=
	kill -TERM "$NATS_PID"
	wait "$NATS_PID" || true
	NATS_PID=
}

check_agent() {
	local deb example=/usr/share/doc/corrosion-agent/examples/agent.toml conf=/etc/corrosion/agent.toml
	deb=$(deb_of corrosion-agent)
	step "dpkg -i $deb"
	dpkg -i "$deb"
	expect_stat /usr/bin/corrosion-agent "root root 755"
	expect_stat /usr/lib/systemd/system/corrosion-agent.service "root root 644"
	expect_stat "$example" "root root 644"
	expect_stat /usr/share/doc/corrosion-agent/copyright "root root 644"
	expect_stat /usr/share/doc/corrosion-agent/changelog.Debian.gz "root root 644"
	expect_stat /usr/share/man/man1/corrosion-agent.1.gz "root root 644"
	getent passwd corrosion | grep -Eq '^corrosion:x:[0-9]+:[0-9]+:[^:]*:/var/lib/corrosion-agent:(/usr)?/sbin/nologin$' ||
		fail "user corrosion: $(getent passwd corrosion || echo missing)"
	expect_stat /etc/corrosion "root root 755"
	expect_stat /var/lib/corrosion-agent "corrosion corrosion 750"
	expect_stat /srv/corrosion "corrosion corrosion 750"
	[[ $(systemctl is-enabled corrosion-agent.service 2>&1 || true) == disabled ]] ||
		fail "corrosion-agent.service is $(systemctl is-enabled corrosion-agent.service 2>&1), want disabled until configured"
	check_version corrosion-agent /usr/bin/corrosion-agent

	step "install the example as $conf and validate it as the service's user"
	install -m 0640 -o root -g corrosion "$example" "$conf"
	runuser -u corrosion -- /usr/bin/corrosion-agent validate --config "$conf" || fail "the installed example does not validate"
	check_agent_runs "$conf"
	touch /var/lib/corrosion-agent/state.keep /srv/corrosion/game.keep

	step "dpkg -i again (the upgrade path) keeps the config"
	cp -p "$conf" "$WORK/agent.toml"
	dpkg -i "$deb"
	cmp -s "$WORK/agent.toml" "$conf" || fail "reinstalling changed $conf"
	expect_stat "$conf" "root corrosion 640"

	step "dpkg -r corrosion-agent"
	dpkg -r corrosion-agent
	expect_absent /usr/bin/corrosion-agent
	expect_absent /usr/lib/systemd/system/corrosion-agent.service
	expect_stat "$conf" "root corrosion 640"
	expect_stat /var/lib/corrosion-agent/state.keep "root root 644"
	expect_stat /srv/corrosion/game.keep "root root 644"
	getent passwd corrosion >/dev/null || fail "dpkg -r removed the user corrosion"

	step "dpkg --purge corrosion-agent"
	dpkg --purge corrosion-agent
	expect_absent "$conf"
	expect_absent /var/lib/corrosion-agent
	expect_stat /srv/corrosion/game.keep "root root 644"
}

# corrosion-panel and corrosion-world: install, user, units, remove, purge.
check_service_pkg() { # package user unit config binaries...
	local pkg=$1 user=$2 unit=$3 conf=$4 deb b
	shift 4
	deb=$(deb_of "$pkg")
	step "dpkg -i $deb"
	dpkg -i "$deb"
	for b in "$@"; do
		expect_stat "/usr/bin/$b" "root root 755"
		expect_stat "/usr/share/man/man1/$b.1.gz" "root root 644"
	done
	expect_stat "/usr/lib/systemd/system/$unit" "root root 644"
	getent passwd "$user" | grep -Eq "^$user:x:[0-9]+:[0-9]+:[^:]*:/nonexistent:(/usr)?/sbin/nologin\$" ||
		fail "user $user: $(getent passwd "$user" || echo missing)"
	check_version "$pkg" "/usr/bin/$1"
	expect_stat "/usr/share/doc/$pkg/examples/$(basename "$conf")" "root root 644"
	install -m 0640 -o root -g "$user" "/usr/share/doc/$pkg/examples/$(basename "$conf")" "$conf"
	step "dpkg -r $pkg"
	dpkg -r "$pkg"
	expect_absent "/usr/lib/systemd/system/$unit"
	expect_stat "$conf" "root $user 640"
	step "dpkg --purge $pkg"
	dpkg --purge "$pkg"
	expect_absent "$conf"
}

check_rpms() {
	if ! command -v rpm >/dev/null; then
		step "rpm is not installed: the rpms are not inspected (apt install rpm)"
		return
	fi
	local f pkg list w want out
	for f in dist/*.rpm; do
		pkg=$(rpm -qp --qf '%{NAME}' "$f")
		step "rpm -qip $f"
		rpm -qip "$f"
		list=$(rpm -qlp "$f")
		echo "$list"
		case $pkg in
			corrosion-agent) want=(/usr/bin/corrosion-agent /usr/lib/systemd/system/corrosion-agent.service /usr/share/doc/corrosion-agent/examples/agent.toml) ;;
			corrosion-panel) want=(/usr/bin/corrosion-panel /usr/lib/systemd/system/corrosion-panel.service /usr/share/doc/corrosion-panel/examples/panel.env) ;;
			corrosion-world) want=(/usr/bin/worldsrv /usr/bin/ether /usr/lib/systemd/system/corrosion-world@.service /usr/share/doc/corrosion-world/examples/world.env) ;;
			*) fail "$f: unexpected package $pkg" ;;
		esac
		for w in "${want[@]}"; do
			grep -qxF "$w" <<<"$list" || fail "$f does not contain $w"
		done
		# Read whole, then searched (not `rpm … | grep -q`): grep -q exits at
		# the first match, and rpm writing on gets SIGPIPE, which pipefail
		# turns into a failed check.
		out=$(rpm -qp --qf '%{DESCRIPTION}' "$f")
		grep -q ', commit [0-9a-f]\{7,\}, built ' <<<"$out" || fail "$f: no commit in its description"
		out=$(rpm -qp --scripts "$f")
		grep -q 'useradd --system' <<<"$out" || fail "$f: its %pre creates no user"
		check_rpm_install "$f" "$pkg"
	done
}

# check_rpm_install has rpm itself install the package into a scratch root
# (without its scripts: they need an RPM system's useradd and systemd, and
# pkgtest runs them), verify every file against the package's header
# (digest, mode, size), run the binary it ships, and erase it again.
check_rpm_install() {
	local f=$1 pkg=$2 root bin out
	root=$WORK/rpmroot-$pkg
	step "rpm -i into a scratch root: $f"
	mkdir -p "$root"
	rpm --root "$root" --initdb
	rpm --root "$root" -i --nodeps --noscripts "$f" 2>&1 | grep -v '^rpm: ' || true
	rpm --root "$root" -q "$pkg" >/dev/null || fail "$f: rpm -i did not install $pkg"
	out=$(rpm --root "$root" -V --nodeps "$pkg") || fail "$f: rpm -V after install: $out"
	# Every line read (no grep -m1): an early exit would kill rpm with
	# SIGPIPE, which pipefail turns into a failed check.
	bin=$(rpm --root "$root" -ql "$pkg" | grep '^/usr/bin/') || fail "$f: no /usr/bin/ program"
	bin=${bin%%$'\n'*}
	out=$("$root$bin" --version)
	grep -q "$(rpm -qp --qf '%{VERSION}' "$f" | tr '~' '-')" <<<"$out" ||
		fail "$f: $bin --version does not name the package's version"
	rpm --root "$root" -e --noscripts "$pkg" 2>&1 | grep -v '^rpm: ' || true
	[ -z "$(find "$root/usr" -type f 2>/dev/null)" ] || fail "$f: rpm -e left files behind"
}

main() {
	compgen -G 'dist/*.deb' >/dev/null || fail "no dist/*.deb: run make packages first"
	preflight
	WORK=$(mktemp -d)
	trap cleanup EXIT
	check_lintian
	check_agent
	check_service_pkg corrosion-panel corrosion-panel corrosion-panel.service /etc/corrosion/panel.env corrosion-panel
	check_service_pkg corrosion-world corrosion-world corrosion-world@.service /etc/corrosion/world.env worldsrv ether
	check_rpms
	cleanup
	trap - EXIT
	for d in "${DIRS[@]}"; do
		expect_absent "$d"
	done
	packaging/check-live.sh
	step "ok"
}

main "$@"
