package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func TestParse_ProvisioningDefaultsAndKeys(t *testing.T) {
	f := newFixture(t)
	c := validConfig(t, f)
	if c.Agent.Provisioning || c.Agent.InstancesRoot != DefaultInstancesRoot() || c.Agent.AllowedPrograms != nil {
		t.Fatalf("defaults: provisioning=%v instances_root=%q allowed_programs=%q; want off, %q, none",
			c.Agent.Provisioning, c.Agent.InstancesRoot, c.Agent.AllowedPrograms, DefaultInstancesRoot())
	}
	if runtime.GOOS != "windows" && DefaultInstancesRoot() != "/srv/corrosion" {
		t.Fatalf("DefaultInstancesRoot() = %q, want /srv/corrosion", DefaultInstancesRoot())
	}
	c, err := Parse(f.toml(`
[agent]
license_id = "lic-1"
provisioning = true
instances_root = "ROOT"
allowed_programs = ["EXE", "sh"]
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if !c.Agent.Provisioning || c.Agent.InstancesRoot != f.root || len(c.Agent.AllowedPrograms) != 2 {
		t.Fatalf("parsed: %+v", c.Agent)
	}
}

func TestValidate_MissingInstancesRootIsFine(t *testing.T) {
	f := newFixture(t)
	c := validConfig(t, f)
	c.Agent.Provisioning = true
	c.Agent.InstancesRoot = filepath.Join(f.dir, "later") // the agent creates it
	if err := c.Validate(); err != nil {
		t.Fatalf("missing instances_root: %v", err)
	}
}

func TestAgent_ProgramAllowed(t *testing.T) {
	f := newFixture(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("sh on PATH: %v", err)
	}
	sh, _ = filepath.Abs(sh)
	a := Agent{AllowedPrograms: []string{f.exe, "sh", f.dir + "/gone"}}
	for path, want := range map[string]bool{
		f.exe: true, f.dir + "/./game.sh": true, sh: true,
		f.file: false, f.dir + "/gone": false, "": false,
	} {
		if got := a.ProgramAllowed(path); got != want {
			t.Errorf("ProgramAllowed(%q) = %v, want %v", path, got, want)
		}
	}
	if err := os.Remove(f.exe); err != nil {
		t.Fatal(err)
	}
	if a.ProgramAllowed(f.exe) {
		t.Errorf("ProgramAllowed(%q) after removal = true", f.exe)
	}
}

// steamcmd and steamcmd_home: parsed, validated naming the key, and
// SteamCMDProgram resolves the configured program (not PATH's).
func TestValidate_SteamCMD(t *testing.T) {
	f := newFixture(t)
	c, err := Parse(f.toml(`
[agent]
license_id = "lic-1"
steamcmd = "EXE"
steamcmd_home = "ROOT"
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if p, ok := c.Agent.SteamCMDProgram(); !ok || p != f.exe || c.Agent.SteamCMDHome != f.root {
		t.Fatalf("SteamCMDProgram() = %q, %v; home %q; want %q, true, %q", p, ok, c.Agent.SteamCMDHome, f.exe, f.root)
	}
	for _, tc := range []struct {
		steamcmd, home, field string
		subs                  []string
	}{
		{steamcmd: f.dir + "/gone", field: "agent.steamcmd", subs: []string{"gone"}},
		{steamcmd: f.file, field: "agent.steamcmd", subs: []string{"not executable"}},
		{steamcmd: "bin/steamcmd", field: "agent.steamcmd", subs: []string{"relative"}},
		{steamcmd: "no-such-steamcmd-here", field: "agent.steamcmd", subs: []string{"not an executable on PATH"}},
		{home: "Steam", field: "agent.steamcmd_home", subs: []string{"relative"}},
		{home: f.file, field: "agent.steamcmd_home", subs: []string{"not a directory"}},
		{home: filepath.Join(f.dir, "not-yet"), field: "agent.steamcmd_home", subs: []string{"not-yet", "run steamcmd once"}},
		{steamcmd: "sh", home: f.root},
	} {
		c := validConfig(t, f)
		c.Agent.SteamCMD, c.Agent.SteamCMDHome = tc.steamcmd, tc.home
		err := c.Validate()
		if tc.field == "" {
			if err != nil {
				t.Errorf("steamcmd %q home %q: %v", tc.steamcmd, tc.home, err)
			}
			continue
		}
		wantProblem(t, err, tc.field, tc.subs...)
		if _, ok := c.Agent.SteamCMDProgram(); ok && tc.steamcmd != "" {
			t.Errorf("SteamCMDProgram() of %q is ok", tc.steamcmd)
		}
	}
	t.Setenv("PATH", f.dir)
	if err := os.WriteFile(filepath.Join(f.dir, "steamcmd.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, ok := (&Agent{}).SteamCMDProgram(); !ok || p != filepath.Join(f.dir, "steamcmd.sh") {
		t.Errorf("SteamCMDProgram() without steamcmd = %q, %v; want PATH's steamcmd.sh", p, ok)
	}
}
