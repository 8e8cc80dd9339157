package config

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// DefaultInstancesRoot is where instances created through the agent
// (provisioning) keep their files: /srv/corrosion, or on Windows
// %ProgramData%\corrosion\instances (C:\ProgramData when the variable is
// unset).
func DefaultInstancesRoot() string {
	if runtime.GOOS == "windows" {
		base := os.Getenv("ProgramData")
		if base == "" {
			base = `C:\ProgramData`
		}
		return filepath.Join(base, "corrosion", "instances")
	}
	return "/srv/corrosion"
}

// validateProvisioning checks instances_root and allowed_programs. They are
// checked whether provisioning is on or off, so a host that turns it on
// later meets no surprise; only their existence on disk is left to the
// agent, which creates instances_root when provisioning starts.
func (a *Agent) validateProvisioning(p *problems) {
	switch root := a.InstancesRoot; {
	case root == "":
		p.add("agent.instances_root", "must not be empty (want an absolute directory, default %q)", DefaultInstancesRoot())
	case !filepath.IsAbs(root):
		p.add("agent.instances_root", "%q is a relative path (want an absolute directory)", root)
	case filepath.Dir(filepath.Clean(root)) == filepath.Clean(root):
		p.add("agent.instances_root", "%q is the root of a file system (want a directory of its own, e.g. %q)", root, DefaultInstancesRoot())
	default:
		if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
			p.add("agent.instances_root", "%q is not a directory", root)
		}
	}
	seen := make(map[string]int, len(a.AllowedPrograms))
	for i, prog := range a.AllowedPrograms {
		field := fmt.Sprintf("agent.allowed_programs[%d]", i)
		if j, dup := seen[prog]; dup {
			p.add(field, "%q is listed twice (also allowed_programs[%d])", prog, j)
			continue
		}
		seen[prog] = i
		if _, err := ResolveProgram(prog); err != nil {
			p.add(field, "%w", err)
		}
	}
	a.validateSteamCMD(p)
}

// validateSteamCMD checks steamcmd (an executable, as ResolveProgram says)
// and steamcmd_home (an absolute, existing directory: steamcmd runs in it;
// it creates its appcache/ there on its first run).
func (a *Agent) validateSteamCMD(p *problems) {
	if a.SteamCMD != "" {
		if _, err := ResolveProgram(a.SteamCMD); err != nil {
			p.add("agent.steamcmd", "%w", err)
		}
	}
	switch home := a.SteamCMDHome; {
	case home == "":
	case !filepath.IsAbs(home):
		p.add("agent.steamcmd_home", "%q is a relative path (want the absolute directory holding steamcmd's appcache/)", home)
	default:
		if fi, err := os.Stat(home); err != nil {
			p.add("agent.steamcmd_home", "%q %w (run steamcmd once, or create it)", home, statErr(err))
		} else if !fi.IsDir() {
			p.add("agent.steamcmd_home", "%q is not a directory", home)
		}
	}
}

// steamCMDNames are the names looked up on PATH when steamcmd is not set.
var steamCMDNames = []string{"steamcmd", "steamcmd.sh"}

// SteamCMDProgram is the absolute path of the steamcmd the install tasks
// run: steamcmd as ResolveProgram resolves it, or when it is not set the
// first of steamcmd, steamcmd.sh on PATH. ok is false when there is none.
func (a *Agent) SteamCMDProgram() (path string, ok bool) {
	if a.SteamCMD != "" {
		p, err := ResolveProgram(a.SteamCMD)
		return p, err == nil
	}
	for _, name := range steamCMDNames {
		if p, err := ResolveProgram(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// ResolveProgram is the absolute path of an allowed_programs entry (or of
// an instance's exec): an absolute path to an executable file as it is, a
// bare command name looked up on PATH. A relative path with a separator, a
// missing file, a directory or a file without an execute bit is an error
// quoting the entry.
func ResolveProgram(prog string) (string, error) {
	if prog == "" {
		return "", fmt.Errorf("is empty (want an absolute path or a command name on PATH)")
	}
	if err := checkExec(prog); err != nil {
		return "", err
	}
	if filepath.IsAbs(prog) {
		return filepath.Clean(prog), nil
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return "", fmt.Errorf("%q is not an executable on PATH: %w", prog, err)
	}
	return filepath.Abs(path)
}

// ProgramAllowed reports whether path (absolute) is one of
// allowed_programs, each entry resolved as ResolveProgram does at the time
// of the call (a name follows PATH). Paths are compared cleaned, and
// without regard to case on Windows.
func (a *Agent) ProgramAllowed(path string) bool {
	want := filepath.Clean(path)
	for _, prog := range a.AllowedPrograms {
		got, err := ResolveProgram(prog)
		if err != nil {
			continue
		}
		if got == want || (runtime.GOOS == "windows" && strings.EqualFold(got, want)) {
			return true
		}
	}
	return false
}
