package installer

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// want is one expected path of an install: mode, owner (0 = root, -1 =
// the corrosion user or group) and, when set, content.
type want struct {
	mode     fs.FileMode
	uid, gid int
	content  []byte
}

const svc = -1 // the corrosion user or group in a want

// expectedTree is exactly what a first install writes into a seeded root
// (the account files and useradd's backups of them included).
func expectedTree(bin []byte) map[string]want {
	dir := func(mode fs.FileMode, uid, gid int) want { return want{mode: fs.ModeDir | mode, uid: uid, gid: gid} }
	file := func(mode fs.FileMode, uid, gid int, c []byte) want {
		return want{mode: mode, uid: uid, gid: gid, content: c}
	}
	tree := map[string]want{
		"etc":                      dir(0o755, 0, 0),
		"etc/corrosion":            dir(0o755, 0, 0),
		"etc/corrosion/agent.toml": file(0o640, 0, svc, []byte(ConfigTemplate)),
		"etc/systemd":              dir(0o755, 0, 0),
		"etc/systemd/system":       dir(0o755, 0, 0),
		"etc/systemd/system/" + ServiceName + ".service": file(0o644, 0, 0, []byte(SystemdUnit(UnitOptions{}))),
		"usr":                           dir(0o755, 0, 0),
		"usr/local":                     dir(0o755, 0, 0),
		"usr/local/bin":                 dir(0o755, 0, 0),
		"usr/local/bin/corrosion-agent": file(0o755, 0, 0, bin),
		"var":                           dir(0o755, 0, 0),
		"var/lib":                       dir(0o755, 0, 0),
		"var/lib/corrosion-agent":       dir(0o750, svc, svc),
		"srv":                           dir(0o755, 0, 0),
		"srv/corrosion":                 dir(0o750, svc, svc),
	}
	for _, f := range []string{"passwd", "group", "shadow", "gshadow"} {
		mode := fs.FileMode(0o644)
		if strings.Contains(f, "shadow") {
			mode = 0o640
		}
		tree["etc/"+f] = file(mode, 0, 0, nil)
		tree["etc/"+f+"-"] = file(mode, 0, 0, nil) // useradd's backup
	}
	return tree
}

// checkTree compares a snapshot with the expected tree, path by path.
func checkTree(t *testing.T, got map[string]node, exp map[string]want, acc account) {
	t.Helper()
	id := func(v int, svcID int) uint32 {
		if v == svc {
			return uint32(svcID)
		}
		return uint32(v)
	}
	var paths []string
	for p := range got {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		w, ok := exp[p]
		n := got[p]
		switch {
		case !ok:
			t.Errorf("unexpected %s (%v)", p, n)
		case n.mode != w.mode || n.uid != id(w.uid, acc.uid) || n.gid != id(w.gid, acc.gid):
			t.Errorf("%s: %v %d:%d, want %v %d:%d", p, n.mode, n.uid, n.gid, w.mode, id(w.uid, acc.uid), id(w.gid, acc.gid))
		case w.content != nil && n.sum != sumOf(w.content):
			t.Errorf("%s: content differs from the expected", p)
		}
	}
	for p := range exp {
		if _, ok := got[p]; !ok {
			t.Errorf("missing %s", p)
		}
	}
}

// TestInstall_DryRun_PrintsThePlanAndChangesNothing.
func TestInstall_DryRun_PrintsThePlanAndChangesNothing(t *testing.T) {
	needRoot(t)
	root := seedRoot(t)
	bin, _ := fakeAgent(t)
	before := snapshot(t, root)
	out := run(t, Install, Options{Root: root, DryRun: true, Binary: bin})
	for _, step := range []string{
		"would create user corrosion",
		"would mkdir /etc/corrosion 0755 root:root",
		"would install " + bin + " as /usr/local/bin/corrosion-agent 0755 root:root",
		"would write /etc/corrosion/agent.toml 0640 root:corrosion",
		"would mkdir /var/lib/corrosion-agent 0750 corrosion:corrosion",
		"would mkdir /srv/corrosion 0750 corrosion:corrosion",
		"would write /etc/systemd/system/corrosion-agent.service 0644 root:root",
		"skip enable corrosion-agent: /etc/corrosion/agent.toml does not validate yet",
		"agent.license_id: is not set",
	} {
		if !strings.Contains(out, step) {
			t.Errorf("plan lacks %q:\n%s", step, out)
		}
	}
	if d := diffSnapshots(before, snapshot(t, root)); len(d) > 0 {
		t.Errorf("a dry run changed the tree:\n%s", strings.Join(d, "\n"))
	}
	out = run(t, Uninstall, Options{Root: root, DryRun: true})
	if d := diffSnapshots(before, snapshot(t, root)); len(d) > 0 {
		t.Errorf("a dry-run uninstall changed the tree:\n%s\n%s", strings.Join(d, "\n"), out)
	}
}

// TestInstall_IntoRoot_ExactTree_SecondInstallChangesNothing_UninstallKeepsData:
// the whole life cycle in a temporary root.
func TestInstall_IntoRoot_ExactTree_SecondInstallChangesNothing_UninstallKeepsData(t *testing.T) {
	needRoot(t)
	root := seedRoot(t)
	bin, binData := fakeAgent(t)
	out := run(t, Install, Options{Root: root, Binary: bin})
	t.Logf("first install:\n%s", out)
	acc, err := lookupAccountFiles(filepath.Join(root, "etc/passwd"), filepath.Join(root, "etc/group"))
	if err != nil || !acc.userFound || !acc.groupFound || acc.uid == 0 || acc.gid == 0 {
		t.Fatalf("the corrosion account after install: %+v, %v", acc, err)
	}
	passwd, _ := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if !strings.Contains(string(passwd), ":/var/lib/corrosion-agent:/usr/sbin/nologin\n") {
		t.Errorf("passwd:\n%s", passwd)
	}
	first := snapshot(t, root)
	checkTree(t, first, expectedTree(binData), acc)

	out = run(t, Install, Options{Root: root, Binary: bin})
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if !strings.HasPrefix(line, "ok ") && !strings.HasPrefix(line, "skip ") &&
			!strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "root ") {
			t.Errorf("second install did something: %q\n%s", line, out)
		}
	}
	if d := diffSnapshots(first, snapshot(t, root)); len(d) > 0 {
		t.Errorf("the second install changed the tree:\n%s", strings.Join(d, "\n"))
	}

	out = run(t, Uninstall, Options{Root: root})
	if !strings.Contains(out, "remove /etc/systemd/system/corrosion-agent.service") ||
		!strings.Contains(out, "keep /etc/corrosion, /var/lib/corrosion-agent, /srv/corrosion, user corrosion") {
		t.Errorf("uninstall output:\n%s", out)
	}
	after := snapshot(t, root)
	kept := expectedTree(binData)
	delete(kept, "etc/systemd/system/"+ServiceName+".service")
	checkTree(t, after, kept, acc)
	again := run(t, Uninstall, Options{Root: root})
	if !strings.Contains(again, "ok   /etc/systemd/system/corrosion-agent.service not installed") {
		t.Errorf("second uninstall:\n%s", again)
	}
	if d := diffSnapshots(after, snapshot(t, root)); len(d) > 0 {
		t.Errorf("the second uninstall changed the tree:\n%s", strings.Join(d, "\n"))
	}
}

// TestInstall_ValidConfig_EnablesOffline_KeepsTheConfig: a config that
// validates is never overwritten, and the unit is enabled (systemctl
// --root, nothing started); uninstall disables it again.
func TestInstall_ValidConfig_EnablesOffline_KeepsTheConfig(t *testing.T) {
	needRoot(t)
	root := seedRoot(t)
	bin, _ := fakeAgent(t)
	cfg := filepath.Join(root, "etc/corrosion/agent.toml")
	mine := []byte("[agent]\nlicense_id = \"lic-1\"\nnats_token = \"${TOKEN}\"\n")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, mine, 0o600); err != nil {
		t.Fatal(err)
	}
	// The ${TOKEN} comes from agent.env, as the service will see it.
	if err := os.WriteFile(filepath.Join(root, "etc/corrosion/agent.env"), []byte("TOKEN=t0k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := run(t, Install, Options{Root: root, Binary: bin})
	if !strings.Contains(out, "skip /etc/corrosion/agent.toml (exists; never overwritten)") ||
		!strings.Contains(out, "systemctl --root="+root+" enable corrosion-agent") {
		t.Errorf("install output:\n%s", out)
	}
	if got, _ := os.ReadFile(cfg); string(got) != string(mine) {
		t.Errorf("the config was overwritten:\n%s", got)
	}
	if fi, _ := os.Stat(cfg); fi.Mode().Perm() != 0o600 {
		t.Errorf("the config's mode was changed to %v", fi.Mode())
	}
	wants := filepath.Join(root, "etc/systemd/system/multi-user.target.wants", ServiceName+".service")
	if target, err := os.Readlink(wants); err != nil || target != UnitPath {
		t.Fatalf("not enabled: %q, %v\n%s", target, err, out)
	}
	// The binary step's line is the Windows install's (one copyAgentBinary).
	if again := run(t, Install, Options{Root: root, Binary: bin}); !strings.Contains(again, "ok   service corrosion-agent enabled") ||
		!strings.Contains(again, "ok   /usr/local/bin/corrosion-agent (the same binary)") {
		t.Errorf("second install:\n%s", again)
	}
	st, err := Status(context.Background(), withValidator(Options{Root: root, Binary: bin}))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"unit:    /etc/systemd/system/corrosion-agent.service installed\n", "service: enabled",
		"config:  /etc/corrosion/agent.toml: valid\n", "binary:  /usr/local/bin/corrosion-agent installed\n", "user:    corrosion (uid"} {
		if !strings.Contains(st, w) {
			t.Errorf("status lacks %q:\n%s", w, st)
		}
	}
	out = run(t, Uninstall, Options{Root: root})
	if _, err := os.Lstat(wants); err == nil || !strings.Contains(out, "disable corrosion-agent") {
		t.Errorf("uninstall left the service enabled:\n%s", out)
	}
}
