package image

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// OCI label keys (the image-spec's pre-defined annotations).
const (
	LabelTitle       = "org.opencontainers.image.title"
	LabelDescription = "org.opencontainers.image.description"
	LabelVersion     = "org.opencontainers.image.version"
	LabelRevision    = "org.opencontainers.image.revision"
	LabelCreated     = "org.opencontainers.image.created"
	LabelSource      = "org.opencontainers.image.source"
	LabelLicenses    = "org.opencontainers.image.licenses"
)

// Platform is an image's OS and architecture.
type Platform struct{ OS, Arch string }

// ParsePlatform reads "linux/amd64" or "linux/arm64".
func ParsePlatform(s string) (Platform, error) {
	osName, arch, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || osName != "linux" || (arch != "amd64" && arch != "arm64") {
		return Platform{}, fmt.Errorf("platform %q: not linux/amd64 or linux/arm64", s)
	}
	return Platform{OS: osName, Arch: arch}, nil
}

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// v1 is the platform as an OCI descriptor states it.
func (p Platform) v1() *v1.Platform {
	v := &v1.Platform{OS: p.OS, Architecture: p.Arch}
	if p.Arch == "arm64" {
		v.Variant = "v8"
	}
	return v
}

// Built is one image for one platform.
type Built struct {
	Platform Platform
	Image    v1.Image
}

// ErrMeta marks build metadata an image cannot carry.
var ErrMeta = errors.New("image metadata")

// tagRE is a Docker tag: what Meta.Version must be.
var tagRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// Validate names the first field an image cannot carry.
func (m Meta) Validate() error {
	switch {
	case !tagRE.MatchString(m.Version):
		return fmt.Errorf("%w: version %q is not a tag ([A-Za-z0-9_][A-Za-z0-9_.-]*, at most 128)", ErrMeta, m.Version)
	case m.Commit == "" || strings.ContainsAny(m.Commit, " \t\r\n'\"\\"):
		return fmt.Errorf("%w: commit %q is empty or has spaces or quotes", ErrMeta, m.Commit)
	case m.Created.IsZero():
		return fmt.Errorf("%w: created time is not set", ErrMeta)
	}
	return nil
}

// Build assembles s for p with go-containerregistry: an empty OCI image,
// one layer per s.Layers entry, then the config.
func Build(s Spec, m Meta, p Platform) (Built, error) {
	if err := m.Validate(); err != nil {
		return Built{}, err
	}
	created := v1.Time{Time: m.Created.UTC().Truncate(time.Second)}
	var adds []mutate.Addendum
	for i, files := range s.Layers {
		l, err := buildLayer(files, m.Created)
		if err != nil {
			return Built{}, fmt.Errorf("%s %s layer %d: %w", s.Name, p, i, err)
		}
		adds = append(adds, mutate.Addendum{Layer: l,
			History: v1.History{Created: created, CreatedBy: fmt.Sprintf("corrosion mkimage: %s layer %d", s.Name, i)}})
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, adds...)
	if err != nil {
		return Built{}, fmt.Errorf("%s %s: %w", s.Name, p, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return Built{}, fmt.Errorf("%s %s config: %w", s.Name, p, err)
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS, cf.Variant, cf.Created, cf.Config = p.Arch, p.OS, p.v1().Variant, created, runConfig(s, m)
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return Built{}, fmt.Errorf("%s %s config: %w", s.Name, p, err)
	}
	return Built{Platform: p, Image: img}, nil
}

// Labels are the OCI labels of s built with m.
func Labels(s Spec, m Meta) map[string]string {
	return map[string]string{
		LabelTitle: s.Name, LabelDescription: s.Description, LabelVersion: m.Version, LabelRevision: m.Commit,
		LabelCreated: m.Created.UTC().Format(time.RFC3339), LabelSource: m.Source, LabelLicenses: m.Licenses,
	}
}

// runConfig is the config's run configuration of s.
func runConfig(s Spec, m Meta) v1.Config {
	ports := map[string]struct{}{}
	for _, port := range s.Ports {
		ports[port] = struct{}{}
	}
	return v1.Config{
		Entrypoint: s.Entrypoint, Cmd: s.Cmd, Env: s.Env, User: User(), WorkingDir: HomeDir,
		ExposedPorts: ports, Labels: Labels(s, m), StopSignal: "SIGTERM",
		Healthcheck: &v1.HealthConfig{Test: s.Health.Test, Interval: s.Health.Interval,
			Timeout: s.Health.Timeout, StartPeriod: s.Health.Wait, Retries: s.Health.Retries},
	}
}
