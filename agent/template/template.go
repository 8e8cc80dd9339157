// Package template is the game template format of docs/templates.md: a TOML
// document (data, never a script) that says how to install a game (ordered
// source steps), run it, stop it, reach its console, edit its config files,
// which ports it uses and which typed variables an operator fills in.
// Parse reads one strictly and validates it; Template.Values checks an
// operator's variables against the template's rules; Render turns a
// template and its values into the concrete run Spec. Built-in templates are
// embedded (Builtins). The panel validates with it and the agent, the trust
// boundary, validates again; nothing here touches the filesystem or the
// network.
package template

import (
	"github.com/corrosion/corrosion/agent/config"
)

// Template is one parsed template. It is immutable after Parse: callers
// read it, Values and Render never change it.
type Template struct {
	ID          string `toml:"id"`          // [a-z0-9][a-z0-9_-]{0,63}
	Name        string `toml:"name"`        // shown to operators
	Game        string `toml:"game"`        // one of config.Games (the agent's game adapters)
	Version     int    `toml:"version"`     // the template's own revision, ≥ 1
	Description string `toml:"description"` // optional

	Sources     []Source     `toml:"source"`      // run in order by install
	Run         Run          `toml:"run"`         // required
	ConfigFiles []ConfigFile `toml:"config_file"` // edits applied before each start
	Ports       []Port       `toml:"port"`
	Variables   []Variable   `toml:"variable"`
}

// Source is one [[source]] step: exactly one of SteamCMD, HTTP and
// GitHubRelease is set. When, if set, makes the step conditional.
type Source struct {
	When          *Condition     `toml:"when"`
	SteamCMD      *SteamCMD      `toml:"steamcmd"`
	HTTP          *HTTP          `toml:"http"`
	GitHubRelease *GitHubRelease `toml:"github_release"`
}

// Condition holds when the variable Variable's value equals Equals (for a
// bool variable "true" or "false").
type Condition struct {
	Variable string `toml:"variable"`
	Equals   string `toml:"equals"`
}

// Platform is the build a steamcmd step installs (SteamCMD's
// +@sSteamCmdForcePlatformType).
type Platform string

// Platforms.
const (
	PlatformLinux   Platform = "linux"
	PlatformWindows Platform = "windows"
)

// ValidateMode says when a steamcmd step passes "validate" to app_update.
type ValidateMode string

// Validate modes.
const (
	ValidateNever       ValidateMode = "never"        // the default
	ValidateInstallOnly ValidateMode = "install_only" // on the first install, not on updates
	ValidateAlways      ValidateMode = "always"
)

// SteamCMD installs or updates a Steam app anonymously.
type SteamCMD struct {
	AppID        int          `toml:"app_id"`        // ≥ 1
	Branch       string       `toml:"branch"`        // templated; empty: public
	BetaPassword string       `toml:"beta_password"` // templated; only with Branch
	Platform     Platform     `toml:"platform"`      // linux (default) | windows
	ExtraApps    []int        `toml:"extra_apps"`    // also installed into the root (e.g. 1007, the Steamworks SDK)
	Validate     ValidateMode `toml:"validate"`      // never (default) | install_only | always
}

// Extract is the archive format a download is extracted as.
type Extract string

// Archive formats.
const (
	ExtractNone  Extract = ""       // the file is kept as downloaded
	ExtractZip   Extract = "zip"    // .zip
	ExtractTarGz Extract = "tar.gz" // gzip-compressed tar
)

// HTTP downloads one file over HTTP(S), checks its SHA-256, and keeps or
// extracts it under Into. URL and SHA256 may be templated (a version the
// operator picks, with its checksum); then Render checks them.
type HTTP struct {
	URL     string  `toml:"url"`     // http or https
	SHA256  string  `toml:"sha256"`  // 64 hex digits, required
	Extract Extract `toml:"extract"` // "" | zip | tar.gz
	Into    string  `toml:"into"`    // relative to the instance root; "" is the root itself
}

// Reapply says when a github_release step runs again after install.
type Reapply string

// Reapply modes.
const (
	ReapplyNever Reapply = "" // installed once
	// ReapplyAfterGameUpdate: after every game update (a Rust update
	// overwrites Oxide's patched files).
	ReapplyAfterGameUpdate Reapply = "after_game_update"
)

// GitHubRelease downloads an asset of a GitHub repository's latest release.
type GitHubRelease struct {
	Repo      string  `toml:"repo"`      // owner/name
	Asset     string  `toml:"asset"`     // the asset's exact file name
	Extract   Extract `toml:"extract"`   // "" | zip | tar.gz
	Into      string  `toml:"into"`      // relative to the instance root
	Overwrite bool    `toml:"overwrite"` // replace files the game installed
	Reapply   Reapply `toml:"reapply"`   // "" | after_game_update
}

// Run says how the game is started, recognised as ready, stopped and
// reached.
type Run struct {
	// Exec is a path relative to the instance root; Program is a program
	// of the host (a name on PATH or an absolute path) that the host must
	// list in its allowed_programs. Exactly one is set.
	Exec    string            `toml:"exec"`
	Program string            `toml:"program"`
	Args    []string          `toml:"args"`   // each templated
	Env     map[string]string `toml:"env"`    // values templated; keys ValidEnvKey, not reserved (see EnvKeyAllowed)
	EnvIf   []EnvIf           `toml:"env_if"` // more env when a condition holds, applied in order
	Ready   Ready             `toml:"ready"`
	Stop    Stop              `toml:"stop"`
	Console Console           `toml:"console"`
}

// EnvIf is one [[run.env_if]]: Env is added to run.env when When holds
// (Carbon's loader variables only when FRAMEWORK is carbon).
type EnvIf struct {
	When Condition         `toml:"when"`
	Env  map[string]string `toml:"env"`
}

// Ready recognises a started game: a console line matching Regex (RE2)
// within Timeout. An empty Regex: running as soon as the process is.
type Ready struct {
	Regex   string          `toml:"regex"`
	Timeout config.Duration `toml:"timeout"` // default 5m
}

// StopKind is how a game is asked to stop.
type StopKind string

// Stop kinds.
const (
	StopCommand StopKind = "command" // write Value and a newline to the console (stdin or RCON per Console)
	StopSignal  StopKind = "signal"  // send the signal named by Value (SIGINT, SIGTERM, …)
	StopRCON    StopKind = "rcon"    // send Value as an RCON command
)

// StopThenKill is what follows a stop that did not end the game within its
// timeout: the process tree is killed. It is the only choice.
const StopThenKill = "kill"

// Stop is the graceful stop.
type Stop struct {
	Kind    StopKind        `toml:"kind"`    // command | signal | rcon; default signal SIGTERM
	Value   string          `toml:"value"`   // the command, or the signal's name
	Timeout config.Duration `toml:"timeout"` // default 30s
	Then    string          `toml:"then"`    // kill (the default and only value)
}

// ConsoleKind is how commands reach a game.
type ConsoleKind string

// Console kinds.
const (
	ConsoleStdin      ConsoleKind = "stdin"       // the process's standard input
	ConsoleSourceRCON ConsoleKind = "source_rcon" // Valve Source RCON over TCP
	ConsoleWebRCON    ConsoleKind = "webrcon"     // Rust's WebSocket RCON
)

// Console is how commands reach the game.
type Console struct {
	Kind     ConsoleKind `toml:"kind"`     // stdin (default) | source_rcon | webrcon
	Port     string      `toml:"port"`     // an RCON console: the name of a [[port]]
	Password string      `toml:"password"` // an RCON console: templated, usually "{{RCON_PASSWORD}}"
	// Broadcast is the console command that tells every player a message,
	// with one MessagePlaceholder ("say {message}"); "" when the game has
	// none (players are not warned before a stop). Not templated.
	Broadcast string `toml:"broadcast"`
}

// MessagePlaceholder is where a broadcast command takes its message.
const MessagePlaceholder = "{message}"

// maxBroadcast bounds a broadcast command.
const maxBroadcast = 256

// Format is a config file's format.
type Format string

// Config file formats.
const (
	FormatProperties Format = "properties"  // key=value (Java properties); Set keys are property names
	FormatINI        Format = "ini"         // Set keys are "Section.Key" ("Key" outside any section)
	FormatJSON       Format = "json"        // Set keys are dotted object paths ("server.port")
	FormatYAML       Format = "yaml"        // Set keys are dotted mapping paths
	FormatXML        Format = "xml"         // Set keys are slash-separated element paths ("Config/Port")
	FormatLinePrefix Format = "line_prefix" // Set keys are line prefixes; the line becomes prefix + value
)

// ConfigFile is one [[config_file]]: values set in a game's own config file
// before each start.
type ConfigFile struct {
	Path   string            `toml:"path"`   // relative to the instance root
	Format Format            `toml:"format"` // properties | ini | json | yaml | xml | line_prefix
	Set    map[string]string `toml:"set"`    // key (per Format) → templated value
}

// Protocol is a port's transport.
type Protocol string

// Port protocols.
const (
	ProtocolTCP Protocol = "tcp"
	ProtocolUDP Protocol = "udp"
)

// Port is one [[port]] the game listens on. Its number is the value of its
// Variable (a port variable) plus Offset when it names one, else Default.
type Port struct {
	Name     string   `toml:"name"`     // [a-z][a-z0-9_]{0,31}, unique
	Protocol Protocol `toml:"protocol"` // tcp | udp
	Default  int      `toml:"default"`  // 1-65535; not with Variable
	Variable string   `toml:"variable"` // optional: a port variable's key
	Offset   int      `toml:"offset"`   // with Variable: -100..100 (Valheim's query port is the game port + 1)
}
