package image

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/corrosion/corrosion/internal/testbin"
	"github.com/corrosion/corrosion/worldsrv/config"
)

// composeFile is the part of packaging/compose.yaml the tests read.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

type composeService struct {
	Image string `yaml:"image"`
	Build *struct {
		Context    string            `yaml:"context"`
		Dockerfile string            `yaml:"dockerfile"`
		Target     string            `yaml:"target"`
		Args       map[string]string `yaml:"args"`
	} `yaml:"build"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
}

// composeVar is a ${NAME:-default} reference.
var composeVar = regexp.MustCompile(`\$\{(\w+)(:-([^}]*))?\}`)

// readCompose reads packaging/compose.yaml with every variable at its
// default (what `docker compose up` uses with nothing set).
func readCompose(t *testing.T) (composeFile, string) {
	t.Helper()
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "packaging", "compose.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	expanded := composeVar.ReplaceAllStringFunc(string(raw), func(ref string) string {
		m := composeVar.FindStringSubmatch(ref)
		if m[2] == "" {
			t.Fatalf("compose.yaml: %s has no default", ref)
		}
		return m[3]
	})
	var c composeFile
	if err := yaml.Unmarshal([]byte(expanded), &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return c, filepath.Dir(path)
}

// The compose services that run our images, and the spec of each.
var composeSpecs = map[string]Spec{"panel-migrate": PanelSpec("", ""), "panel": PanelSpec("", ""), "world": WorldSpec("", "")}

func TestCompose_Services(t *testing.T) {
	c, _ := readCompose(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range c.Services {
			if !yield(n) {
				return
			}
		}
	})
	if want := []string{"nats", "panel", "panel-migrate", "postgres", "world"}; !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}
	for name, s := range c.Services {
		if name == "panel-migrate" { // one-shot: the panel waits for it to complete instead
			if s.Healthcheck != nil {
				t.Errorf("%s: a one-shot job with a health check", name)
			}
			continue
		}
		if s.Healthcheck == nil || len(s.Healthcheck.Test) < 2 || s.Healthcheck.Test[0] != "CMD" {
			t.Errorf("%s: no health check run without a shell (CMD ...)", name)
		}
	}
	healthy := func(deps ...string) map[string]string {
		m := map[string]string{}
		for _, d := range deps {
			m[d] = "service_healthy"
		}
		return m
	}
	wantDeps := map[string]map[string]string{
		"nats": {}, "postgres": {}, "panel-migrate": healthy("postgres"), "world": healthy("nats", "postgres"),
		"panel": {"panel-migrate": "service_completed_successfully", "nats": "service_healthy", "postgres": "service_healthy"},
	}
	for name, want := range wantDeps {
		got := map[string]string{}
		for d, cond := range c.Services[name].DependsOn {
			got[d] = cond.Condition
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s depends_on %v, want %v", name, got, want)
		}
	}
	if cmd := c.Services["nats"].Command; !slices.Contains(cmd, "--jetstream") && !slices.Contains(cmd, "-js") {
		t.Errorf("nats runs without JetStream: %v", cmd)
	}
	for _, v := range append(c.Services["postgres"].Volumes, c.Services["nats"].Volumes...) {
		if _, ok := c.Volumes[strings.Split(v, ":")[0]]; !ok {
			t.Errorf("volume %s is not a named volume", v)
		}
	}
}

// TestCompose_OurServices: images and build targets match the archives and
// the Containerfile, health checks and ports match the images and DESIGN.md
// (the world's from its own configuration with the service's settings).
func TestCompose_OurServices(t *testing.T) {
	c, dir := readCompose(t)
	stages := readContainerfile(t)
	for name, spec := range composeSpecs {
		s := c.Services[name]
		if !strings.HasPrefix(s.Image, spec.Name+":") {
			t.Errorf("%s: image %q is not %s:<tag> (the name `docker load` gives the archive)", name, s.Image, spec.Name)
		}
		if s.Build == nil {
			t.Fatalf("%s: no build section", name)
		}
		if _, err := os.Stat(filepath.Join(dir, s.Build.Context, s.Build.Dockerfile)); err != nil {
			t.Errorf("%s: build file: %v", name, err)
		}
		if _, ok := stages[s.Build.Target]; !ok || s.Build.Target != strings.TrimPrefix(spec.Name, "corrosion-") {
			t.Errorf("%s: build target %q is not the Containerfile's stage for %s", name, s.Build.Target, spec.Name)
		}
		if name != "panel-migrate" && !slices.Equal(s.Healthcheck.Test, spec.Health.Test) {
			t.Errorf("%s: health check %v, want the image's %v", name, s.Healthcheck.Test, spec.Health.Test)
		}
	}
	panel := c.Services["panel"]
	_, port, _ := net.SplitHostPort(panel.Environment["CORROSION_PANEL_LISTEN"])
	if port != "7780" || !slices.Equal(panel.Ports, []string{"7780:7780"}) {
		t.Errorf("panel listens on %q and publishes %v; DESIGN.md: 7780", port, panel.Ports)
	}
	world := c.Services["world"]
	cfg, err := config.Load(world.Command, func(k string) string { return world.Environment[k] })
	if err != nil {
		t.Fatalf("the world's command and environment: %v", err)
	}
	game, http := config.GamePortBase+int(cfg.NodeID), config.HTTPPortBase+int(cfg.NodeID)
	want := []string{fmt.Sprintf("%d:%d", game, game), fmt.Sprintf("%d:%d", http, http)}
	if cfg.NodeID != 10 || cfg.Ether != config.EtherSpawn || !slices.Equal(world.Ports, want) ||
		!strings.HasSuffix(cfg.HTTPListen, ":"+strconv.Itoa(http)) {
		t.Errorf("world: node %d, ether %s, ports %v; want node 10 spawning its ether on %v", cfg.NodeID, cfg.Ether, world.Ports, want)
	}
	if cfg.DB.Host != "postgres" || !slices.Equal(cfg.Cluster, []string{"nats://nats:4222"}) {
		t.Errorf("world: database %s, NATS %v: not the compose services", cfg.DB.Host, cfg.Cluster)
	}
}

// checkComposeCommands runs the command line of every compose service of
// ours, and its health check, with --help and the service's environment on
// the binaries taken from the images: the commands and flags exist and the
// environment parses.
func checkComposeCommands(t *testing.T, bins map[string]string) {
	t.Helper()
	c, _ := readCompose(t)
	for name, spec := range composeSpecs {
		s := c.Services[name]
		bin := bins[spec.Name]
		env := []string{"PATH=/nonexistent"}
		for k, v := range s.Environment {
			env = append(env, k+"="+v)
		}
		lines := [][]string{append(slices.Clone(s.Command), "--help")}
		if s.Healthcheck != nil {
			lines = append(lines, append(slices.Clone(s.Healthcheck.Test[2:]), "--help"))
		}
		for _, args := range lines {
			if out, err := runWithEnv(bin, env, args...); err != nil {
				t.Errorf("%s: %s %v: %v\n%s", name, spec.Name, args, err, out)
			}
		}
	}
}
