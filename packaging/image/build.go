package image

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
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

// Built is one image for one platform: its manifest, config and layers.
type Built struct {
	Platform Platform
	Manifest blob
	Config   blob
	Layers   []layer
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

// Build assembles s for p: one layer per s.Layers entry, then the config
// and the manifest.
func Build(s Spec, m Meta, p Platform) (Built, error) {
	if err := m.Validate(); err != nil {
		return Built{}, err
	}
	b := Built{Platform: p}
	var diffIDs []v1.Hash
	for i, files := range s.Layers {
		l, err := buildLayer(files, m.Created)
		if err != nil {
			return Built{}, fmt.Errorf("%s %s layer %d: %w", s.Name, p, i, err)
		}
		b.Layers = append(b.Layers, l)
		diffIDs = append(diffIDs, l.DiffID)
	}
	cfg, err := json.Marshal(configFile(s, m, p, diffIDs))
	if err != nil {
		return Built{}, fmt.Errorf("%s config: %w", s.Name, err)
	}
	b.Config = newBlob(cfg)
	man, err := json.Marshal(b.manifest())
	if err != nil {
		return Built{}, fmt.Errorf("%s manifest: %w", s.Name, err)
	}
	b.Manifest = newBlob(man)
	return b, nil
}

// Labels are the OCI labels of s built with m.
func Labels(s Spec, m Meta) map[string]string {
	return map[string]string{
		LabelTitle: s.Name, LabelDescription: s.Description, LabelVersion: m.Version, LabelRevision: m.Commit,
		LabelCreated: m.Created.UTC().Format(time.RFC3339), LabelSource: m.Source, LabelLicenses: m.Licenses,
	}
}

func configFile(s Spec, m Meta, p Platform, diffIDs []v1.Hash) v1.ConfigFile {
	ports := map[string]struct{}{}
	for _, port := range s.Ports {
		ports[port] = struct{}{}
	}
	created := v1.Time{Time: m.Created.UTC().Truncate(time.Second)}
	cf := v1.ConfigFile{
		Architecture: p.Arch, OS: p.OS, Variant: p.v1().Variant, Created: created,
		Config: v1.Config{
			Entrypoint: s.Entrypoint, Cmd: s.Cmd, Env: s.Env, User: User(), WorkingDir: HomeDir,
			ExposedPorts: ports, Labels: Labels(s, m), StopSignal: "SIGTERM",
			Healthcheck: &v1.HealthConfig{Test: s.Health.Test, Interval: s.Health.Interval,
				Timeout: s.Health.Timeout, StartPeriod: s.Health.Wait, Retries: s.Health.Retries},
		},
		RootFS: v1.RootFS{Type: "layers", DiffIDs: diffIDs},
	}
	for i := range diffIDs {
		cf.History = append(cf.History, v1.History{Created: created, CreatedBy: fmt.Sprintf("corrosion mkimage: %s layer %d", s.Name, i)})
	}
	return cf
}

func (b Built) manifest() v1.Manifest {
	man := v1.Manifest{
		SchemaVersion: 2, MediaType: types.OCIManifestSchema1,
		Config: v1.Descriptor{MediaType: types.OCIConfigJSON, Size: int64(len(b.Config.Data)), Digest: b.Config.Digest},
	}
	for _, l := range b.Layers {
		man.Layers = append(man.Layers, v1.Descriptor{MediaType: types.OCILayer, Size: int64(len(l.Data)), Digest: l.Digest})
	}
	return man
}

// descriptor is the manifest's descriptor, with its platform.
func (b Built) descriptor() v1.Descriptor {
	return v1.Descriptor{MediaType: types.OCIManifestSchema1, Size: int64(len(b.Manifest.Data)),
		Digest: b.Manifest.Digest, Platform: b.Platform.v1()}
}
