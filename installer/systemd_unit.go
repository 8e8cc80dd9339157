package installer

import (
	_ "embed"
	"strings"
)

// Where the Linux installer puts things (under Options.Root when set).
const (
	ServiceName = "corrosion-agent"                             // the systemd service
	UnitPath    = "/etc/systemd/system/corrosion-agent.service" // the unit file
	BinaryPath  = "/usr/local/bin/corrosion-agent"              // the agent binary the unit runs
	ConfigDir   = "/etc/corrosion"                              // config and secrets
	EnvFilePath = "/etc/corrosion/agent.env"                    // optional secrets for ${VAR}
	StateDir    = "/var/lib/corrosion-agent"                    // the agent's state_dir
	GamesDir    = "/srv/corrosion"                              // where game roots go
	ServiceUser = "corrosion"                                   // user and group the agent runs as
	linuxConfig = "/etc/corrosion/agent.toml"                   // DefaultConfigPath on Linux
)

//go:embed templates/corrosion-agent.service
var unitTemplate string

// UnitOptions are the paths a systemd unit names.
type UnitOptions struct {
	Binary     string // "" = BinaryPath
	ConfigPath string // "" = /etc/corrosion/agent.toml
}

// SystemdUnit renders the agent's systemd unit.
func SystemdUnit(o UnitOptions) string {
	if o.Binary == "" {
		o.Binary = BinaryPath
	}
	if o.ConfigPath == "" {
		o.ConfigPath = linuxConfig
	}
	return strings.NewReplacer("{{.Binary}}", systemdArg(o.Binary), "{{.Config}}", systemdArg(o.ConfigPath)).
		Replace(unitTemplate)
}

// systemdArg quotes one word of an Exec line: % and $ are doubled (systemd
// reads them as specifiers and variables), and a word with white space,
// quotes or backslashes is double-quoted with C escapes.
func systemdArg(s string) string {
	s = strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
	if !strings.ContainsAny(s, " \t\n\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s) + `"`
}
