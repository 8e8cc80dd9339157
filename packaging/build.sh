#!/usr/bin/env bash
# Builds the corrosion-agent, corrosion-panel and corrosion-world packages
# (deb and rpm) into dist/ with nfpm (`go tool nfpm`, pinned in go.mod).
# `make packages` runs it; run from anywhere.
#
# Environment (the Makefile sets all of them):
#   VERSION COMMIT DATE   stamped into the binaries and the package metadata
#   LDFLAGS               the Makefile's -X flags (-s -w are added here)
#   ARCHES                GOARCH values, default "amd64"
#   MAINTAINER            "Name <address>" of the packages
#   GO                    the go command, default go
# The nfpm configs name dist/stage (the rendered agent unit, the changelog,
# the maintainer scripts).
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
ARCHES=${ARCHES:-amd64}
: "${VERSION:?VERSION is not set}" "${COMMIT:?COMMIT is not set}" "${DATE:?DATE is not set}"
: "${LDFLAGS:?LDFLAGS is not set}" "${MAINTAINER:?MAINTAINER is not set}"
CMDS=(./agent/cmd/corrosion-agent ./panel/cmd/corrosion-panel ./worldsrv/cmd/worldsrv ./ether/cmd/ether)
PACKAGES=(agent panel world)
FORMATS=(deb rpm)
STAGE=dist/stage # named in packaging/nfpm/*.yaml
HOSTARCH=$("$GO" env GOHOSTARCH)
export VERSION COMMIT DATE MAINTAINER

say() { echo "packages: $*"; }

# Static binaries (no cgo) for each architecture, in bin/linux_<arch>/.
build_binaries() {
	local arch=$1
	say "build ${CMDS[*]} for linux/$arch"
	CGO_ENABLED=0 GOOS=linux GOARCH="$arch" "$GO" build -trimpath \
		-ldflags "$LDFLAGS -s -w" -o "bin/linux_$arch/" "${CMDS[@]}"
}

# The agent's unit as the agent itself renders it for /usr/bin (the same
# unit `corrosion-agent install` writes, docs/installer.md).
render_agent_unit() {
	local agent="bin/linux_$HOSTARCH/corrosion-agent"
	"$agent" install --print-unit --binary /usr/bin/corrosion-agent >"$STAGE/corrosion-agent.service"
	say "agent unit rendered by corrosion-agent install --print-unit"
}

# The maintainer scripts, rendered from packaging/scripts (one template per
# hook, the packages' values beside them); pkgtest runs the same program.
render_scripts() {
	"$GO" run ./packaging/scripts/mkscripts -out "$STAGE/scripts"
	say "maintainer scripts rendered by packaging/scripts/mkscripts"
}

# A manual page for each program, from its own --help (the text verbatim,
# roff-escaped): man corrosion-agent works and stays in step with the binary.
man_page() { # name summary help-args...
	local name=$1 summary=$2 bin="bin/linux_$HOSTARCH/$1"
	shift 2
	{
		printf '.TH %s 1 "%s" "Corrosion %s" "Corrosion"\n' "${name^^}" "${DATE%%T*}" "$VERSION"
		printf '.SH NAME\n%s \\- %s\n.SH DESCRIPTION\n.nf\n' "$name" "$summary"
		local args
		for args in "$@"; do
			# shellcheck disable=SC2086 # args is a word list
			"$bin" $args | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
			echo
		done
		printf '.fi\n.SH SEE ALSO\n/usr/share/doc/%s/, https://github.com/corrosion/corrosion\n' "$name"
	} | gzip -9n >"$STAGE/$name.1.gz"
}

write_man_pages() {
	man_page corrosion-agent "Corrosion host agent" --help
	man_page corrosion-panel "Corrosion operator panel" --help "serve --help"
	man_page worldsrv "Corrosion world server" --help
	man_page ether "social sidecar of a Corrosion world" --help
}

# One changelog entry for this build (nfpm writes it as changelog.Debian.gz
# and the rpm %changelog).
write_changelog() {
	cat >"$STAGE/changelog.yaml" <<-YAML
	- semver: "$VERSION"
	  date: "$DATE"
	  packager: "$MAINTAINER"
	  deb:
	    urgency: medium
	    distributions: [stable]
	  changes:
	    - note: "Build of version $VERSION from commit $COMMIT."
	YAML
}

main() {
	rm -rf "$STAGE" dist/*.deb dist/*.rpm # dist/ also holds the images' archives
	mkdir -p "$STAGE"
	local arch pkg format
	for arch in $ARCHES; do
		build_binaries "$arch"
	done
	[[ " $ARCHES " == *" $HOSTARCH "* ]] || build_binaries "$HOSTARCH" # the agent that renders its unit
	render_agent_unit
	render_scripts
	write_man_pages
	write_changelog
	for arch in $ARCHES; do
		for pkg in "${PACKAGES[@]}"; do
			for format in "${FORMATS[@]}"; do
				ARCH=$arch BIN=bin/linux_$arch "$GO" tool nfpm package --config "packaging/nfpm/$pkg.yaml" \
					--packager "$format" --target dist/ | sed 's/^/packages: /'
			done
		done
	done
	ls -l dist/*.deb dist/*.rpm
}

main "$@"
