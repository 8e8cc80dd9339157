# Corrosion — build, run, test, bench.
SHELL := /bin/bash
GO ?= go
VERSION ?= 0.1.0-dev
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
BI := github.com/corrosion/corrosion/internal/buildinfo
LDFLAGS := -X $(BI).Version=$(VERSION) -X $(BI).Commit=$(COMMIT) -X $(BI).Date=$(DATE)
CMDS := $(sort $(patsubst %/main.go,./%,$(wildcard */cmd/*/main.go)))
TEST_TIMEOUT ?= 14m

.PHONY: all build run test test-go lint generate generate-check cross bench fuzz clean

all: build

build:
	@mkdir -p bin
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ $(CMDS)

run: build
	bin/corrosion-panel dev

generate:
	$(GO) tool templ generate

# Fails when committed *_templ.go files are stale.
generate-check:
	@if ls web/*.templ >/dev/null 2>&1 || find . -name '*.templ' | grep -q .; then \
		$(GO) tool templ generate >/dev/null && git diff --exit-code -- '*_templ.go' \
		|| { echo "generated templ files are stale: run make generate and commit"; exit 1; }; fi

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v _templ.go)); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

cross:
	GOOS=windows GOARCH=amd64 $(GO) build ./...
	GOOS=windows GOARCH=amd64 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) build ./...

test-go:
	$(GO) test -race -timeout $(TEST_TIMEOUT) ./...

test: lint generate-check cross test-go

# Short fuzz runs of every fuzz target (the seed corpora also run in make test).
FUZZTIME ?= 20s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; done

bench: build
	$(GO) run ./tools/benchreport -out BENCHMARKS.md

# OCI archives of the panel and world images in dist/, built without a Docker
# daemon (docs/containers.md); PLATFORMS=linux/amd64,linux/arm64 for both.
PLATFORMS ?= linux/amd64
.PHONY: images
images:
	$(GO) run ./packaging/image/mkimage -version $(VERSION) -commit $(COMMIT) -created $(DATE) -platforms $(PLATFORMS) -out dist

# deb and rpm of corrosion-agent, corrosion-panel and corrosion-world in dist/
# (docs/packages.md), from static binaries in bin/linux_<arch>/;
# PKG_ARCHES="amd64 arm64" for both.
PKG_ARCHES ?= amd64
PKG_MAINTAINER ?= Corrosion maintainers <corrosion@example.org>
.PHONY: packages package-check
packages:
	GO="$(GO)" VERSION="$(VERSION)" COMMIT="$(COMMIT)" DATE="$(DATE)" LDFLAGS="$(LDFLAGS)" \
		ARCHES="$(PKG_ARCHES)" MAINTAINER="$(PKG_MAINTAINER)" packaging/build.sh

# lintian, then install/remove/purge of the debs on this machine (as root; it
# leaves the machine as it found it), and rpm -qip of the rpms.
package-check:
	packaging/check.sh

clean:
	rm -rf bin
