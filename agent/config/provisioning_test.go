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
