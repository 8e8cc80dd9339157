package pkgtest

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/testbin"
)

// settingLine is one NAME=value line of an environment file, set or
// commented out ("#NAME=value": an optional setting the example shows).
var settingLine = regexp.MustCompile(`(?m)^#?([A-Z][A-Z0-9_]*)=`)

// helpEnvName is a variable as a program's --help names it: "[NAME]".
var helpEnvName = regexp.MustCompile(`\[([A-Z][A-Z0-9_]*)\]`)

// TestEnvExamples_NamesAreRead: every variable the shipped example
// environment files set (or show commented out) is one the program reads,
// as its own --help lists them, so a renamed variable cannot leave a
// dead line in an example. The world's WORLD_ARGS is the unit's own.
func TestEnvExamples_NamesAreRead(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files := readShipped(t, root).files
	cases := []struct {
		example, cmd string
		help         []string
		unitOwn      []string // read by the unit itself, not the program
	}{
		{"/usr/share/doc/corrosion-panel/examples/panel.env", "./panel/cmd/corrosion-panel", []string{"serve", "--help"}, nil},
		{"/usr/share/doc/corrosion-world/examples/world.env", "./worldsrv/cmd/worldsrv", []string{"--help"}, []string{"WORLD_ARGS"}},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			src, ok := files[c.example]
			if !ok {
				t.Fatalf("no package ships %s", c.example)
			}
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(testbin.Build(t, c.cmd), c.help...)
			cmd.Env = testbin.Env()
			help, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", c.cmd, strings.Join(c.help, " "), err, help)
			}
			read := c.unitOwn
			for _, m := range helpEnvName.FindAllStringSubmatch(string(help), -1) {
				read = append(read, m[1])
			}
			names := settingLine.FindAllStringSubmatch(string(b), -1)
			if len(names) == 0 {
				t.Fatalf("%s sets nothing", src)
			}
			for _, m := range names {
				if !slices.Contains(read, m[1]) {
					t.Errorf("%s sets %s, which %s does not read (its --help lists %v)", src, m[1], c.cmd, read)
				}
			}
		})
	}
}

// TestWorldEnv_NoNodeID: the node id comes from the unit's instance name
// (--node-id %i, which wins over RS_NODE_ID); a node id in the shared
// world.env would mislead.
func TestWorldEnv_NoNodeID(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(readShipped(t, root).files["/usr/share/doc/corrosion-world/examples/world.env"])
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range settingLine.FindAllStringSubmatch(string(b), -1) {
		if m[1] == "RS_NODE_ID" {
			t.Errorf("world.env sets RS_NODE_ID")
		}
	}
}
