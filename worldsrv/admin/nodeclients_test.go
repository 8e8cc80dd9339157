package admin_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/worldsrv/admin"
)

// nodeClientsDir holds the Node RCON clients, pinned by its
// package-lock.json; .ci/run installs them with npm ci.
const nodeClientsDir = "testdata/rconclients"

// requireNodeClients returns the node binary, or skips the test when node
// or the clients are missing; in CI ($CI set) it fails instead.
func requireNodeClients(t *testing.T) string {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: CI must run the third-party RCON clients (.ci/run installs them)", why)
		}
		t.Skipf("%s; run `npm ci --prefix worldsrv/admin/%s` (CI runs this test)", why, nodeClientsDir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	for _, mod := range []string{"rcon-srcds", "rcon-client"} {
		if _, err := os.Stat(filepath.Join(nodeClientsDir, "node_modules", mod, "package.json")); err != nil {
			missing("the npm package " + mod + " is not installed")
		}
	}
	return node
}

// TestSource_ThirdPartyClients: the most used Node clients (rcon-srcds
// 2.1.1, rcon-client) and gorcon log in and run commands against the
// world's Source RCON. rcon-srcds reads one packet per socket read and
// hung forever on the auth answer when the world sent the empty
// RESPONSE_VALUE and the AUTH_RESPONSE in one write.
func TestSource_ThirdPartyClients(t *testing.T) {
	node := requireNodeClients(t)
	w := startWorld(t, admin.Config{})
	w.console.setPlayers([]string{"alice", "bob"})
	commands := []string{"status", "players", "help"}
	want := []string{"players 2/2000", "2 players online: alice, bob", "kick <name>"}
	check := func(t *testing.T, replies []string) {
		t.Helper()
		if len(replies) != len(commands) {
			t.Fatalf("%d replies to %d commands: %q", len(replies), len(commands), replies)
		}
		for i, r := range replies {
			if !strings.Contains(r, want[i]) {
				t.Errorf("%q: reply %q lacks %q", commands[i], r, want[i])
			}
		}
	}
	for _, client := range []string{"rcon-srcds", "rcon-client"} {
		t.Run(client, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			args := append([]string{"run.js", client, strconv.Itoa(w.srcPort), testPassword}, commands...)
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Dir = nodeClientsDir
			out, err := cmd.Output()
			var res struct {
				OK      bool     `json:"ok"`
				Error   string   `json:"error"`
				Replies []string `json:"replies"`
			}
			if jerr := json.Unmarshal(out, &res); jerr != nil {
				t.Fatalf("%s: %v; output %q", client, err, out)
			}
			if !res.OK {
				t.Fatalf("%s failed: %s", client, res.Error)
			}
			check(t, res.Replies)
		})
	}
	t.Run("gorcon", func(t *testing.T) {
		c, err := gorconDial(w, testPassword)
		if err != nil {
			t.Fatalf("gorcon dial: %v", err)
		}
		defer c.Close()
		var replies []string
		for _, cmd := range commands {
			r, err := c.Execute(cmd)
			if err != nil {
				t.Fatalf("gorcon %q: %v", cmd, err)
			}
			replies = append(replies, r)
		}
		check(t, replies)
	})
}
