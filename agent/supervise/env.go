package supervise

import (
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/corrosion/corrosion/agent/config"
)

// baseEnv names the variables of the agent's environment a game gets
// (when set): enough to find programs, a home, a locale, a time zone and
// a temp dir. Everything else of the agent's environment — other
// instances' passwords, secrets used for ${VAR} expansion, NATS URLs —
// stays with the agent unless the instance sets inherit_env.
var baseEnv = map[string][]string{
	"unix": {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL", "TZ", "TMPDIR"},
	"windows": {"PATH", "PATHEXT", "SystemRoot", "SystemDrive", "windir", "COMSPEC", "TEMP", "TMP",
		"USERPROFILE", "USERNAME", "USERDOMAIN", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA",
		"ProgramData", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "CommonProgramFiles",
		"CommonProgramFiles(x86)", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS", "TZ"},
}

// The variables naming the instance to its own process (docs/agent.md,
// "What a game is told"): which license runs it and its instance id. ether
// and worldsrv put them in what they report, so the panel attributes their
// reports by what the process says, never by a name pattern.
const (
	EnvLicenseID  = "CORROSION_LICENSE_ID"
	EnvInstanceID = "CORROSION_INSTANCE_ID"
)

// gameEnviron is the environment of the instance's process: the base
// variables (or, with inherit_env, the agent's whole environment), then
// the instance's env table, then, when license is set, EnvLicenseID and
// EnvInstanceID, which win (an env table cannot rename its instance).
func gameEnviron(cfg *config.Instance, license string) []string {
	var env []string
	if cfg.InheritEnv {
		env = os.Environ()
	} else {
		env = filterEnv(os.Environ(), baseEnvNames())
	}
	keys := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+cfg.Env[k])
	}
	if license != "" {
		env = append(filterOut(env, EnvLicenseID, EnvInstanceID), EnvLicenseID+"="+license, EnvInstanceID+"="+cfg.ID)
	}
	return env
}

// filterOut drops the entries of environ named in names.
func filterOut(environ []string, names ...string) []string {
	drop := filterEnv(environ, names)
	return slices.DeleteFunc(environ, func(kv string) bool { return slices.Contains(drop, kv) })
}

func baseEnvNames() []string {
	if runtime.GOOS == "windows" {
		return baseEnv["windows"]
	}
	return baseEnv["unix"]
}

// filterEnv keeps the entries of environ named in names (case-insensitively
// on Windows, where variable names are).
func filterEnv(environ, names []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		for _, n := range names {
			if k == n || (runtime.GOOS == "windows" && strings.EqualFold(k, n)) {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}
