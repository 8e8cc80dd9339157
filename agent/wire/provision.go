package wire

// Provisioning (DESIGN §4, docs/wire-protocol.md "Provisioning"): the host
// funcs that create, update and delete instances from templates, and the
// instance funcs that install and update them. Every func here is refused
// with CodeProvisioningDisabled unless the host's [agent] provisioning is on.

// Host funcs of provisioning, on host.cmd.
const (
	FuncInstanceCreate = "instance_create"
	FuncInstanceUpdate = "instance_update"
	FuncInstanceDelete = "instance_delete"
)

// Instance funcs of provisioning, on an instance's cmd subject: long tasks.
// install, steam_update and oxide_install answer as soon as the task is
// accepted (TaskReply); update_check answers with its result (it reads a
// manifest and asks SteamCMD, nothing else). Every task writes its progress
// as "agent" console lines and ends with a status event whose Task says how
// it went. One task per instance at a time (CodeBusy otherwise); SteamCMD
// runs one at a time per host (a second waits its turn, saying so).
const (
	FuncInstall      = "install"
	FuncUpdateCheck  = "update_check"
	FuncSteamUpdate  = "steam_update"
	FuncOxideInstall = "oxide_install"
)

// Refusal codes of provisioning (docs/agent.md says when each is sent).
// A refusal of one field also names it in ErrorReply.Field.
const (
	CodeBadID             = "bad_id"              // id not [a-z0-9_-]{1,64}, or "host"
	CodeInstanceExists    = "instance_exists"     // id already defined (agent.toml or created)
	CodeUnknownTemplate   = "unknown_template"    // no template with that id on this agent
	CodeInvalidValue      = "invalid_value"       // a variable's value breaks its rule (Field names it)
	CodeProgramNotAllowed = "program_not_allowed" // run.exec outside the instance root and not in allowed_programs
	CodeRootEscape        = "root_escape"         // the instance root would leave instances_root
	CodePortInUse         = "port_in_use"         // another instance declares it, or another process holds it
	CodeHostDefined       = "host_defined"        // an agent.toml instance: not editable from the panel
	CodeInstanceRunning   = "instance_running"    // delete of a running instance without force; install, or oxide_install with no_restart, while it runs
	CodeNotProvisioned    = "not_provisioned"     // a task on an instance that has no template
	CodeTaskFailed        = "task_failed"         // update_check could not get its answer
)

// InstanceCreateRequest is host.cmd instance_create. Template names one of
// the agent's built-in templates; or TemplateTOML carries a template the
// panel holds (an imported egg), which the agent validates as any template
// and keeps with the instance (Template is then its id).
type InstanceCreateRequest struct {
	Func         string            `json:"func"`
	ID           string            `json:"id"`
	Template     string            `json:"template"`
	TemplateTOML string            `json:"template_toml,omitempty"`
	Values       map[string]string `json:"values,omitempty"`
	Label        string            `json:"label,omitempty"`
}

// InstanceUpdateRequest is host.cmd instance_update: the values given
// replace those stored; a value not given is kept.
type InstanceUpdateRequest struct {
	Func   string            `json:"func"`
	ID     string            `json:"id"`
	Values map[string]string `json:"values,omitempty"`
	Label  *string           `json:"label,omitempty"`
}

// InstanceDeleteRequest is host.cmd instance_delete. A running instance is
// refused (CodeInstanceRunning) unless Force, which stops it first; its
// files stay unless Purge.
type InstanceDeleteRequest struct {
	Func  string `json:"func"`
	ID    string `json:"id"`
	Force bool   `json:"force,omitempty"`
	Purge bool   `json:"purge,omitempty"`
}

// InstanceCreateReply answers instance_create: the instance as created.
type InstanceCreateReply struct {
	ID       string          `json:"id"`
	Template string          `json:"template"`
	Root     string          `json:"root"`
	Ports    []BoundPortInfo `json:"ports"`
}

// BoundPortInfo is one port an instance declares, with its number.
type BoundPortInfo struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
	Port     int    `json:"port"`
}

// InstanceUpdateReply answers instance_update: the variables whose value
// changed, and those of them that take effect only after a restart.
type InstanceUpdateReply struct {
	ID              string   `json:"id"`
	Changed         []string `json:"changed"`
	RestartRequired []string `json:"restart_required,omitempty"`
}

// InstanceDeleteReply answers instance_delete.
type InstanceDeleteReply struct {
	ID      string `json:"id"`
	Stopped bool   `json:"stopped,omitempty"` // it was running and force stopped it
	Purged  bool   `json:"purged,omitempty"`  // its root was removed
}

// GameStop is the part of steam_update's and oxide_install's requests
// about stopping a running game: WarnSeconds (default 0) is how long
// players are warned through the console before the graceful stop.
type GameStop struct {
	WarnSeconds int `json:"warn_seconds,omitempty"`
}

// SteamUpdateRequest is {instance}.cmd steam_update: update when a newer
// build is available, or always with Force; a running game is warned,
// stopped, and started again after the update.
type SteamUpdateRequest struct {
	Func  string `json:"func"`
	Force bool   `json:"force,omitempty"`
	GameStop
}

// OxideInstallRequest is {instance}.cmd oxide_install: install the mod
// framework FRAMEWORK names. A running game is warned, stopped, and
// started again after the install, as for steam_update; with NoRestart it
// is refused (CodeInstanceRunning) instead.
type OxideInstallRequest struct {
	Func      string `json:"func"`
	NoRestart bool   `json:"no_restart,omitempty"`
	GameStop
}

// TaskReply answers install, steam_update and oxide_install: the task was
// accepted and runs; its end comes as a status event carrying TaskResult.
type TaskReply struct {
	Task string `json:"task"`
}

// UpdateCheckReply answers update_check. InstalledBuild is empty when the
// game is not installed; Partial says the manifest shows a half-finished
// download (its Bytes* fields).
type UpdateCheckReply struct {
	AppID           string `json:"app_id"`
	Branch          string `json:"branch"`
	InstalledBuild  string `json:"installed_build,omitempty"`
	AvailableBuild  string `json:"available_build"`
	UpdateAvailable bool   `json:"update_available"`
	Partial         bool   `json:"partial,omitempty"`
}

// Task results (TaskResult.Result).
const (
	TaskOK     = "ok"
	TaskFailed = "failed"
)

// TaskResult is the end of a long task, in StateEvent.Task of the status
// event that follows it. A failed task leaves the instance stopped, and
// Message says why (Code is the refusal or steam code when one applies).
type TaskResult struct {
	Task     string  `json:"task"`
	Result   string  `json:"result"`
	Code     string  `json:"code,omitempty"`
	Message  string  `json:"message,omitempty"`
	OldBuild string  `json:"old_build,omitempty"`
	NewBuild string  `json:"new_build,omitempty"`
	Seconds  float64 `json:"seconds"`
}
