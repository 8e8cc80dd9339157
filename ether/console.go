package ether

import (
	"encoding/json"
	"fmt"
	"strings"
)

// consoleWords are the commands ether's console input (stdin) knows: the
// few an operator of a sidecar needs. Its world's admin console has the
// game's commands.
var consoleWords = []string{"status", "health", "help"}

// ConsoleLine answers one line typed on ether's console input (stdin,
// which the agent writes for the panel's "Send"): status (one line of
// health), health (the health snapshot as JSON), help.
func (n *Node) ConsoleLine(line string) string {
	word, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	switch strings.ToLower(word) {
	case "status":
		h := n.Health()
		return fmt.Sprintf("node %d  cluster %s  world link %s  sessions %d\ndb %s  nats %s  peers %v  login lock %s",
			h.Node, h.Cluster, h.WorldLink, h.Sessions, upDown(h.DBUp), upDown(h.NATSConnected), h.Peers, h.LoginLock)
	case "health":
		b, err := json.Marshal(n.Health())
		if err != nil {
			return "health: " + err.Error()
		}
		return string(b)
	case "help":
		return "commands: status (one line of health), health (the health snapshot as JSON), help"
	}
	return fmt.Sprintf("unknown command %q; commands: %s", word, strings.Join(consoleWords, ", "))
}

func upDown(up bool) string {
	if up {
		return "up"
	}
	return "down"
}
