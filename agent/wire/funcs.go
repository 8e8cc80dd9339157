package wire

// Func names: the "func" of a request on a cmd subject
// (docs/wire-protocol.md). The agent serves them under these names and
// every client (the panel, the dev system) asks with them.

// Host funcs, on host.cmd.
const (
	FuncPing    = "ping"
	FuncProbe   = "probe"
	FuncSysinfo = "sysinfo"
	// FuncTemplates lists the templates the agent accepts for
	// instance_create (refused with CodeProvisioningDisabled unless
	// [agent] provisioning is on).
	FuncTemplates = "templates"
)

// Instance funcs, on an instance's cmd subject. The four power funcs are
// the supervisor's actions (agent/supervise.Action).
const (
	FuncStart   = "start"
	FuncStop    = "stop"
	FuncRestart = "restart"
	FuncKill    = "kill"
	FuncStatus  = "status"
	FuncLogs    = "logs"
	FuncSend    = "send"
	FuncRCON    = "rcon"
)

// IsPowerFunc reports whether fn is one of the four power actions.
func IsPowerFunc(fn string) bool {
	switch fn {
	case FuncStart, FuncStop, FuncRestart, FuncKill:
		return true
	}
	return false
}

// File manager funcs, on an instance's files.cmd subject (docs/files.md;
// agent/files serves them).
const (
	FuncFMList    = "fm_list"
	FuncFMStat    = "fm_stat"
	FuncFMRead    = "fm_read"
	FuncFMSave    = "fm_save"
	FuncFMMkdir   = "fm_mkdir"
	FuncFMRename  = "fm_rename"
	FuncFMCopy    = "fm_copy"
	FuncFMDelete  = "fm_delete"
	FuncFMChmod   = "fm_chmod"
	FuncFMSearch  = "fm_search"
	FuncFMArchive = "fm_archive"
	FuncFMExtract = "fm_extract"
)

// CanStart reports whether the supervisor takes a start in state s: the
// process is not there (stopped or crashed). A start of a starting or
// running instance is refused as already running, of a stopping one as
// busy; unmanaged instances have no process to start.
func (s State) CanStart() bool { return s == StateStopped || s == StateCrashed }

// CanStop reports whether the supervisor takes a stop (or a restart that
// stops first) in state s: the process is up (starting or running). A
// crashed instance whose restart is pending takes a stop too (it cancels
// the restart), which the state alone does not tell.
func (s State) CanStop() bool { return s.Up() }

// CanKill reports whether the supervisor takes a kill in state s: there is
// a process (starting, running, or stopping: a kill ends a stop that
// hangs).
func (s State) CanKill() bool { return s.Up() || s == StateStopping }
