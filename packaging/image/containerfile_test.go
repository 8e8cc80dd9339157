package image

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/testbin"
)

// stage is one FROM ... AS name of the Containerfile: its parent and its
// instructions (continuation lines joined).
type stage struct {
	from  string
	instr []string
}

func readContainerfile(t *testing.T) map[string]stage {
	t.Helper()
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "packaging", "container", "Containerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]stage{}
	var cur string
	text := strings.ReplaceAll(string(raw), "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if strings.EqualFold(f[0], "FROM") {
			cur = f[len(f)-1]
			stages[cur] = stage{from: f[len(f)-3]}
			continue
		}
		if cur != "" {
			s := stages[cur]
			s.instr = append(s.instr, line)
			stages[cur] = s
		}
	}
	return stages
}

// instructions are the stage's instructions named kw, its parents' first.
func (s stage) instructions(all map[string]stage, kw string) []string {
	var out []string
	if p, ok := all[s.from]; ok {
		out = p.instructions(all, kw)
	}
	for _, in := range s.instr {
		if k, rest, _ := strings.Cut(in, " "); strings.EqualFold(k, kw) {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return out
}

// TestContainerfile_MatchesImages: the Containerfile's panel and world
// stages run like the images mkimage builds (entrypoint, command, user,
// ports, environment, health check, title, binaries).
func TestContainerfile_MatchesImages(t *testing.T) {
	all := readContainerfile(t)
	for target, spec := range map[string]Spec{"panel": PanelSpec("", ""), "world": WorldSpec("", "")} {
		t.Run(target, func(t *testing.T) {
			s, ok := all[target]
			if !ok || s.from != "base" || all["base"].from != "scratch" {
				t.Fatalf("no stage %s built on base, on scratch", target)
			}
			last := func(kw string) string {
				in := s.instructions(all, kw)
				if len(in) == 0 {
					return ""
				}
				return in[len(in)-1]
			}
			var entry, cmd []string
			_ = json.Unmarshal([]byte(last("ENTRYPOINT")), &entry)
			_ = json.Unmarshal([]byte(last("CMD")), &cmd)
			if !slices.Equal(entry, spec.Entrypoint) || !slices.Equal(cmd, spec.Cmd) {
				t.Errorf("ENTRYPOINT %v CMD %v, want %v %v", entry, cmd, spec.Entrypoint, spec.Cmd)
			}
			if u := last("USER"); u != User() {
				t.Errorf("USER %q, want %q", u, User())
			}
			if p := strings.Fields(last("EXPOSE")); !slices.Equal(p, spec.Ports) {
				t.Errorf("EXPOSE %v, want %v", p, spec.Ports)
			}
			if env := strings.Fields(last("ENV")); !slices.Equal(env, spec.Env) {
				t.Errorf("ENV %v, want %v", env, spec.Env)
			}
			hc := last("HEALTHCHECK")
			var test []string
			if _, js, ok := strings.Cut(hc, "CMD "); ok {
				_ = json.Unmarshal([]byte(js), &test)
			}
			if !slices.Equal(append([]string{"CMD"}, test...), spec.Health.Test) {
				t.Errorf("HEALTHCHECK %q, want %v", hc, spec.Health.Test)
			}
			labels := strings.Join(s.instructions(all, "LABEL"), " ")
			for _, want := range []string{LabelTitle + "=" + spec.Name, LabelVersion + "=$VERSION", LabelRevision + "=$COMMIT", LabelCreated + "=$CREATED"} {
				if !strings.Contains(labels, want) {
					t.Errorf("LABELs lack %s", want)
				}
			}
			copies := strings.Join(s.instructions(all, "COPY"), " ")
			for _, f := range spec.Layers[1] {
				if !strings.Contains(copies, filepath.Base(f.Path)) || !strings.Contains(copies, BinDir) {
					t.Errorf("no COPY of %s into %s", f.Path, BinDir)
				}
			}
		})
	}
}

// runWithEnv runs bin with args and exactly env.
func runWithEnv(bin string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	return cmd.CombinedOutput()
}
