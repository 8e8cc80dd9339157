package childproc

import "os/exec"

// Group is a child started by StartGroup together with every process it
// starts: Kill ends them all at once (a program that forks helpers and
// exits, or hangs in one of them, leaves nothing behind). The child is
// also bound to this process's lifetime as StartBound binds it.
type Group struct {
	cmd *exec.Cmd // started by StartGroup; its Process is the group's leader
	sys groupSys  // the platform's handle on the group (group_*.go)
}

// Kill ends the child and every process of its group. Killing a group
// that has already ended is not an error.
func (g *Group) Kill() error { return g.sys.kill(g.cmd) }

// Close releases the group's handle after the child was waited for; on
// Windows it also ends any process of the group still running.
func (g *Group) Close() error { return g.sys.close() }
