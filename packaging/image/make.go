package image

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// buildinfoPkg holds the version variables the linker sets.
const buildinfoPkg = "github.com/corrosion/corrosion/internal/buildinfo"

// Options say what Make builds and where.
type Options struct {
	ModuleRoot string     // the repository: where `go build` runs
	OutDir     string     // the archives' directory (created)
	WorkDir    string     // the binaries, per platform (created; "": a temporary directory, removed after)
	Platforms  []Platform // one archive per image holds them all
	Meta       Meta
	CACerts    string    // "" = DefaultCACerts
	Log        io.Writer // one line per step; nil = io.Discard
}

// Make builds the static binaries for every platform, then the panel and
// world images, and writes one OCI archive per image to OutDir. It returns
// the archives' paths.
func Make(ctx context.Context, o Options) ([]string, error) {
	if err := o.Meta.Validate(); err != nil {
		return nil, err
	}
	if len(o.Platforms) == 0 {
		return nil, fmt.Errorf("make images: no platforms")
	}
	if o.CACerts == "" {
		o.CACerts = DefaultCACerts
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if _, err := os.Stat(o.CACerts); err != nil {
		return nil, fmt.Errorf("make images: CA certificates: %w (install ca-certificates or pass another bundle)", err)
	}
	if o.WorkDir == "" {
		dir, err := os.MkdirTemp("", "corrosion-image-*")
		if err != nil {
			return nil, fmt.Errorf("make images: %w", err)
		}
		defer os.RemoveAll(dir)
		o.WorkDir = dir
	}
	specs := map[string]func(binDir, caCerts string) Spec{PanelName: PanelSpec, WorldName: WorldSpec}
	built := map[string][]Built{}
	for _, p := range o.Platforms {
		binDir := filepath.Join(o.WorkDir, p.OS+"_"+p.Arch)
		fmt.Fprintf(o.Log, "build static binaries for %s in %s\n", p, binDir)
		if err := BuildBinaries(ctx, o.ModuleRoot, binDir, p, o.Meta); err != nil {
			return nil, err
		}
		for name, spec := range specs {
			b, err := Build(spec(binDir, o.CACerts), o.Meta, p)
			if err != nil {
				return nil, err
			}
			built[name] = append(built[name], b)
		}
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("make images: %w", err)
	}
	var out []string
	for _, name := range []string{PanelName, WorldName} {
		path := filepath.Join(o.OutDir, ArchiveName(name, o.Meta.Version))
		if err := writeArchiveFile(path, name, o.Meta, built[name]); err != nil {
			return nil, err
		}
		fmt.Fprintf(o.Log, "wrote %s (%s)\n", path, strings.Join(platformNames(built[name]), ", "))
		out = append(out, path)
	}
	return out, nil
}

// writeArchiveFile writes the archive next to path and renames it in place,
// so a failed run never leaves half an archive under the final name.
func writeArchiveFile(path, name string, m Meta, images []Built) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // after the rename: nothing left to remove
	if err := WriteArchive(f, name, m, images); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func platformNames(images []Built) []string {
	var out []string
	for _, b := range images {
		out = append(out, b.Platform.String())
	}
	return out
}

// BuildBinaries builds the images' binaries (mainPackages) for p into dir: static
// (CGO_ENABLED=0), trimmed paths, no symbol tables, and m's version,
// commit and time linked in as `make build` does.
func BuildBinaries(ctx context.Context, moduleRoot, dir string, p Platform, m Meta) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("build binaries: %w", err)
	}
	ldflags := strings.Join([]string{"-s", "-w",
		"-X", buildinfoPkg + ".Version=" + m.Version,
		"-X", buildinfoPkg + ".Commit=" + m.Commit,
		"-X", buildinfoPkg + ".Date=" + m.Created.UTC().Format(time.RFC3339)}, " ")
	args := append([]string{"build", "-trimpath", "-ldflags", ldflags, "-o", dir + string(filepath.Separator)}, mainPackages()...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build binaries for %s: %w\n%s", p, err, out)
	}
	return nil
}
