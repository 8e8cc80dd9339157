package installer

// What the Windows installer (installer_windows.go) registers and writes,
// as plain values built by pure functions, so its tests run on every
// platform (winsvc_spec_test.go). Nothing here calls Windows.

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// The Windows service and its Event Log source.
const (
	WindowsServiceName   = "corrosion-agent"
	windowsDisplayName   = "Corrosion agent"
	windowsDescription   = "Supervises this host's game servers for Corrosion and reports to the panel over NATS. Game servers keep running while it is stopped or restarted, and are adopted when it starts."
	windowsEventSource   = WindowsServiceName
	windowsDefaultPData  = `C:\ProgramData`
	windowsDefaultPFiles = `C:\Program Files`
)

// winLayout is where the agent lives on a Windows host: the binary under
// %ProgramFiles%\Corrosion, everything else under %ProgramData%\Corrosion.
// The paths are Windows paths whatever GOOS is.
type winLayout struct {
	Binary  string // %ProgramFiles%\Corrosion\corrosion-agent.exe
	Base    string // %ProgramData%\Corrosion (readable by Administrators and SYSTEM only)
	Config  string // Base\agent.toml
	EnvFile string // Base\agent.env: NAME=value lines for ${NAME} in the config, read at each service start
	Data    string // Base\data: the agent's state_dir
	Servers string // Base\servers: where game servers' roots go
}

// windowsLayout is the layout under programData and programFiles (""
// = C:\ProgramData, C:\Program Files).
func windowsLayout(programData, programFiles string) winLayout {
	if programData == "" {
		programData = windowsDefaultPData
	}
	if programFiles == "" {
		programFiles = windowsDefaultPFiles
	}
	base := strings.TrimRight(programData, `\/`) + `\Corrosion`
	return winLayout{Binary: strings.TrimRight(programFiles, `\/`) + `\Corrosion\corrosion-agent.exe`,
		Base: base, Config: base + `\agent.toml`, EnvFile: base + `\agent.env`, Data: base + `\data`,
		Servers: base + `\servers`}
}

// winStartType is how the service manager starts the service.
type winStartType int

const (
	// winStartDelayed: automatic, delayed (after the other automatic
	// services and the network have come up); the configured state.
	winStartDelayed winStartType = iota
	// winStartManual: registered but not started at boot, while the config
	// does not validate (like a systemd unit that is not enabled).
	winStartManual
)

func (t winStartType) String() string {
	if t == winStartManual {
		return "manual (the config does not validate yet)"
	}
	return "automatic (delayed start)"
}

// winRecovery is the service manager's answer to the agent failing (a
// crash, or an exit with an error): restart it after each delay in turn,
// the last one for every later failure, and forget the count after a
// failure-free ResetAfter.
type winRecovery struct {
	Delays     []time.Duration
	ResetAfter time.Duration
}

func (r winRecovery) String() string {
	parts := make([]string, len(r.Delays))
	for i, d := range r.Delays {
		parts[i] = d.String()
	}
	return fmt.Sprintf("restart after %s; failure count reset after %s", strings.Join(parts, ", "), r.ResetAfter)
}

// winServiceSpec is the service as registered.
type winServiceSpec struct {
	Name        string
	DisplayName string
	Description string
	Binary      string   // absolute path of corrosion-agent.exe
	Args        []string // after the binary: run --config <path>
	Start       winStartType
	Recovery    winRecovery
	EventSource string
	// Preshutdown is how long the service manager waits for the agent
	// after the preshutdown notification (the host is going down), while
	// it stops every game gracefully; Windows' default is far shorter.
	Preshutdown time.Duration
}

// CommandLine is the service's binary path and arguments as the service
// manager stores them (BinaryPathName), quoted as Windows splits them.
func (s winServiceSpec) CommandLine() string {
	return composeCommandLine(append([]string{s.Binary}, s.Args...))
}

// windowsServiceSpec is the service running binary with the config at
// configPath, started as start says.
func windowsServiceSpec(binary, configPath string, start winStartType) winServiceSpec {
	return winServiceSpec{
		Name: WindowsServiceName, DisplayName: windowsDisplayName, Description: windowsDescription,
		Binary: binary, Args: []string{"run", "--config", configPath}, Start: start,
		Recovery: winRecovery{
			Delays:     []time.Duration{5 * time.Second, 10 * time.Second, 30 * time.Second},
			ResetAfter: 24 * time.Hour,
		},
		EventSource: windowsEventSource,
		Preshutdown: windowsPreshutdown,
	}
}

// windowsPreshutdown: as the systemd unit's TimeoutStopSec; enough for
// the default stop_timeout_seconds (30).
const windowsPreshutdown = 120 * time.Second

// composeCommandLine joins args into one command line that Windows'
// CommandLineToArgvW (and Go's os.Args) splits back into args, exactly as
// the service manager package composes the BinaryPathName it registers
// (syscall.EscapeArg of the binary and of each argument), so a registered
// service can be compared with the spec.
func composeCommandLine(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = escapeArg(a)
	}
	return strings.Join(quoted, " ")
}

// escapeArg is syscall.EscapeArg (Windows only in the standard library):
// "" for an empty argument; quotes around one with a space or tab; a
// backslash before each quote, and each run of backslashes before a quote
// (or before the closing quote) doubled.
func escapeArg(s string) string {
	if s == "" {
		return `""`
	}
	space := strings.ContainsAny(s, " \t")
	if !strings.ContainsAny(s, `"\`) {
		if space {
			return `"` + s + `"`
		}
		return s
	}
	var b strings.Builder
	if space {
		b.WriteByte('"')
	}
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(s[i])
	}
	if space {
		b.WriteString(strings.Repeat(`\`, slashes))
		b.WriteByte('"')
	}
	return b.String()
}

// unixPath matches a path of the Linux layout in the config template, with
// the rest of the path after the directory.
var unixPath = regexp.MustCompile(`(/etc/corrosion|/var/lib/corrosion-agent|/srv/corrosion)((?:/[A-Za-z0-9._-]+)*)`)

// quotedUnixPath is such a path as a TOML basic string.
var quotedUnixPath = regexp.MustCompile(`"` + unixPath.String() + `"`)

// windowsConfig is the Linux config template (ConfigTemplate) for a
// Windows host: the same keys and advice, with the Linux paths mapped to
// l (/etc/corrosion → Base, /var/lib/corrosion-agent → Data,
// /srv/corrosion → Servers) and path values written as TOML literal
// strings ('C:\…': in a "…" string a backslash starts an escape), and a
// header on what differs.
func windowsConfig(template string, l winLayout) string {
	mapPath := func(dir, rest string) string {
		base := map[string]string{"/etc/corrosion": l.Base, "/var/lib/corrosion-agent": l.Data,
			"/srv/corrosion": l.Servers}[dir]
		return base + strings.ReplaceAll(rest, "/", `\`)
	}
	out := quotedUnixPath.ReplaceAllStringFunc(template, func(m string) string {
		sub := quotedUnixPath.FindStringSubmatch(m)
		return "'" + mapPath(sub[1], sub[2]) + "'"
	})
	out = unixPath.ReplaceAllStringFunc(out, func(m string) string {
		sub := unixPath.FindStringSubmatch(m)
		return mapPath(sub[1], sub[2])
	})
	out = strings.ReplaceAll(out, "sudo ", "")
	return windowsConfigHeader(l) + out
}

// windowsConfigHeader says what the Linux template's advice means on
// Windows.
func windowsConfigHeader(l winLayout) string {
	return "# Windows host: the corrosion-agent service runs as LocalSystem, and so do\n" +
		"# the game servers it starts. " + l.Base + " is readable by\n" +
		"# Administrators and SYSTEM only; run the commands below in an elevated\n" +
		"# prompt, without sudo. The user, group and file modes named below are\n" +
		"# Linux's. The service reads " + l.EnvFile + " at each start.\n#\n"
}

// secondsDuration is a count of seconds as the service manager reports it.
func secondsDuration(s uint32) time.Duration { return time.Duration(s) * time.Second }
