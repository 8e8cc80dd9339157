package supervise

import (
	"os/exec"

	"github.com/corrosion/corrosion/internal/childproc"
)

// A child that dies with its parent (Options.DieWithParent) is for a
// program that supervises a helper of its own — worldsrv and its ether
// sidecar — where a helper outliving its owner would be an orphan holding a
// port and a cluster identity. The agent's own game instances use it only
// when its config sets games_die_with_agent (corrosion-panel dev's demo
// fleet): a game outlives an agent restart (see the package doc).
//
// How each exit of the supervising process reaches the child:
//
//   - Stop, Kill, a stop timeout: the supervisor signals or kills the
//     child's whole process group and every descendant (killTree), as for
//     any instance.
//   - The supervising process ends without stopping it (an error exit, an
//     unrecovered panic, a signal, kill -9): on Linux the kernel sends the
//     child SIGKILL (the parent-death signal); on Windows the child is in a
//     job object that kills it when the last handle to the job closes,
//     which is when this process ends (both internal/childproc). Elsewhere
//     there is no such mechanism and New logs a warning.
//
// The kernel's parent-death signal reaches one process: the child. The
// child leads its own session and process group, but a SIGKILL to a group
// leader does not reach the rest of the group, and the setting is not
// inherited across fork. So on a kill -9 of the supervising process the
// child's own descendants survive unless they set their own parent-death
// signal; a child that forks nothing (ether) leaves nothing behind. On
// Windows, descendants the child creates after it was put in the job are in
// the job too and die with it.

// startCmd starts cmd, bound to this process's lifetime when the
// supervisor's children die with their parent.
func (s *Supervisor) startCmd(cmd *exec.Cmd) error {
	if !s.dieWithParent {
		return cmd.Start()
	}
	return childproc.StartBound(cmd)
}

// warnUnbound notes, once at New, that this platform cannot kill the
// child when this process is killed outright.
func (s *Supervisor) warnUnbound() {
	if s.dieWithParent && !childproc.BoundOnKill {
		s.log.Warn("die-with-parent: this platform has no parent-death signal; " +
			"the child is stopped on every orderly exit but outlives a kill of this process")
	}
}
