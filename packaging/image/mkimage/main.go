// Command mkimage builds Corrosion's container images without a Docker
// daemon and writes them as OCI archives (`make images`):
//
//	go run ./packaging/image/mkimage -version V -commit C [-created RFC3339] [-platforms linux/amd64,linux/arm64] [-out dist]
//
// It writes dist/corrosion-panel-V.oci.tar and dist/corrosion-world-V.oci.tar.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/corrosion/corrosion/packaging/image"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "mkimage: %v\n", err)
		return 2
	}
	o.Log = stdout
	if _, err := image.Make(ctx, o); err != nil {
		fmt.Fprintf(stderr, "mkimage: %v\n", err)
		return 1
	}
	return 0
}

func parse(args []string, out io.Writer) (image.Options, error) {
	fs := flag.NewFlagSet("mkimage", flag.ContinueOnError)
	fs.SetOutput(out)
	var o image.Options
	version := fs.String("version", "", "version: the images' tag and org.opencontainers.image.version (required)")
	commit := fs.String("commit", "", "git commit: org.opencontainers.image.revision (required)")
	created := fs.String("created", "", "build time, RFC 3339 (default now)")
	fs.StringVar(&o.Meta.Source, "source", "https://github.com/corrosion/corrosion", "org.opencontainers.image.source")
	fs.StringVar(&o.Meta.Licenses, "licenses", "LicenseRef-Corrosion-unpublished", "org.opencontainers.image.licenses (SPDX)")
	platforms := fs.String("platforms", "linux/amd64", "comma-separated: linux/amd64, linux/arm64 (several: one multi-platform archive per image)")
	fs.StringVar(&o.OutDir, "out", "dist", "directory for the archives")
	fs.StringVar(&o.WorkDir, "work", "", "directory for the static binaries (default OUT/.image-build)")
	fs.StringVar(&o.ModuleRoot, "root", ".", "the repository (holds go.mod)")
	fs.StringVar(&o.CACerts, "ca-certs", image.DefaultCACerts, "CA bundle copied into the images")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o.Meta.Version, o.Meta.Commit, o.Meta.Created = *version, *commit, time.Now().UTC()
	if *created != "" {
		t, err := time.Parse(time.RFC3339, *created)
		if err != nil {
			return o, fmt.Errorf("-created %q is not RFC 3339 (2026-11-24T05:00:00Z)", *created)
		}
		o.Meta.Created = t
	}
	for _, s := range strings.Split(*platforms, ",") {
		p, err := image.ParsePlatform(s)
		if err != nil {
			return o, fmt.Errorf("-platforms: %w", err)
		}
		if slices.Contains(o.Platforms, p) {
			return o, fmt.Errorf("-platforms: %s twice", p)
		}
		o.Platforms = append(o.Platforms, p)
	}
	if o.WorkDir == "" {
		o.WorkDir = filepath.Join(o.OutDir, ".image-build")
	}
	if _, err := os.Stat(filepath.Join(o.ModuleRoot, "go.mod")); err != nil {
		return o, fmt.Errorf("-root %s: no go.mod (run from the repository or pass -root)", o.ModuleRoot)
	}
	return o, o.Meta.Validate()
}
