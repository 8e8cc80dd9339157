package agent_test

import "os"

// killLeftover kills a game process the test left running.
func killLeftover(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
