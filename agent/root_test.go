//go:build unix

package agent_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const rootGames = `
[[instance]]
id = "game1"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
restart = "never"

[[instance]]
id = "auto1"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
restart = "never"
autostart = true
`

// TestAgent_RootWithoutAllowRoot_RefusesToStartGames: an agent running as
// root starts no game server unless [agent] allow_root is true. The start
// reply is start_failed naming the key, the autostart is refused the same
// way, and validate warns. With allow_root = true (or not as root) both
// start. CI runs as root, so there the refusal is what is checked.
func TestAgent_RootWithoutAllowRoot_RefusesToStartGames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		allow bool
	}{{"allow_root false", false}, {"allow_root true", true}} {
		t.Run(tc.name, func(t *testing.T) {
			h := prepareHarness(t, 60, rootGames, fmt.Sprintf("allow_root = %v", tc.allow))
			h.startAgent()
			refused := os.Geteuid() == 0 && !tc.allow
			rep := h.cmd("game1", `{"func":"start","wait":true}`)
			if !refused {
				h.mustOK(rep)
				h.waitState("auto1", "running")
				return
			}
			msg := h.mustErr(rep, "start_failed")
			if !strings.Contains(msg, "allow_root = true") || !strings.Contains(msg, "as root") {
				t.Errorf("the refusal does not say why or name the key: %q", msg)
			}
			st := h.waitState("auto1", "crashed")
			if _, running := st["pid"]; running {
				t.Errorf("auto1 was started as root: %v", st)
			}
			h.waitLine("auto1", "allow_root = true")
			out, err := exec.Command(h.bin, "validate", "--config", h.cfgPath).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "warning") || !strings.Contains(string(out), "allow_root") {
				t.Errorf("validate as root without allow_root: %v\n%s\nwant success with a warning naming allow_root", err, out)
			}
		})
	}
}
