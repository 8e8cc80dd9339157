package pkgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goreleaser/nfpm/v2"

	"github.com/corrosion/corrosion/internal/testbin"
)

// fakeTools stand in for the programs whose effects the maintainer scripts'
// service handling must not have on this machine: each records its
// command line in $CALLS and does nothing.
var fakeTools = []string{"systemctl", "install"}

// host is the machine a script runs on, made in a private mount namespace
// where /run is a fresh tmpfs: the scripts tell a systemd host by
// /run/systemd/system, as debhelper's and rpm's snippets do.
type host string

const (
	// Debian: the scripts' service actions go through deb-systemd-invoke,
	// which runs the (recording) systemctl found on PATH. DPKG_ROOT points
	// it at a root without policy-rc.d: container images such as this
	// machine's may carry one that forbids everything (policyHost).
	systemdHost host = `mount -t tmpfs corrosion-pkgtest /run && mkdir -p /run/systemd/system /run/root &&
		DPKG_ROOT=/run/root exec sh "$0" "$@"`
	containerHost host = `mount -t tmpfs corrosion-pkgtest /run && exec sh "$0" "$@"` // no systemd as PID 1
	// An RPM system: no deb-systemd-invoke (hidden behind a file that is
	// not executable), so the scripts call systemctl themselves.
	rpmHost host = `mount -t tmpfs corrosion-pkgtest /run && mkdir -p /run/systemd/system && touch /run/noexec &&
		{ [ ! -e /usr/bin/deb-systemd-invoke ] || mount --bind /run/noexec /usr/bin/deb-systemd-invoke; } && exec sh "$0" "$@"`
	// Debian with a policy-rc.d that forbids every service action, as in a
	// chroot or an image build; deb-systemd-invoke honours it.
	policyHost host = `mount -t tmpfs corrosion-pkgtest /run && mkdir -p /run/systemd/system /run/root/usr/sbin &&
		printf '#!/bin/sh\nexit 101\n' >/run/root/usr/sbin/policy-rc.d && chmod +x /run/root/usr/sbin/policy-rc.d &&
		DPKG_ROOT=/run/root exec sh "$0" "$@"`
)

// stagedScripts is where the nfpm configs name the maintainer scripts:
// packaging/build.sh renders them there.
const stagedScripts = "dist/stage/scripts/"

// renderScripts renders the maintainer scripts as packaging/build.sh does
// (packaging/scripts/mkscripts) into a fresh directory and returns it.
func renderScripts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(testbin.Build(t, "./packaging/scripts/mkscripts"), "-out", dir)
	cmd.Env = testbin.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mkscripts: %v\n%s", err, out)
	}
	return dir
}

// scriptsOf returns a package's maintainer scripts as its nfpm config names
// them, found in rendered (renderScripts): hook ("preinstall",
// "postinstall", "preremove", "postremove") → file.
func scriptsOf(t *testing.T, root, rendered, pkg string) map[string]string {
	t.Helper()
	cfg, err := nfpm.ParseFileWithEnvMapping(filepath.Join(root, "packaging/nfpm", pkg+".yaml"), func(string) string { return "" })
	if err != nil {
		t.Fatalf("parse %s.yaml: %v", pkg, err)
	}
	sc := cfg.Scripts
	named := map[string]string{"preinstall": sc.PreInstall, "postinstall": sc.PostInstall, "preremove": sc.PreRemove, "postremove": sc.PostRemove}
	got := map[string]string{}
	for hook, src := range named {
		name, ok := strings.CutPrefix(src, stagedScripts)
		if !ok {
			t.Fatalf("%s.yaml: %s script %q is not rendered into %s", pkg, hook, src, stagedScripts)
		}
		got[hook] = filepath.Join(rendered, name)
		if _, err := os.Stat(got[hook]); err != nil {
			t.Fatalf("%s.yaml: %s script: %v", pkg, hook, err)
		}
	}
	return got
}

// runScript runs a maintainer script with args on h and returns the
// systemctl command lines it ran.
func runScript(t *testing.T, h host, script string, args ...string) []string {
	t.Helper()
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	for _, tool := range fakeTools {
		fake := "#!/bin/sh\necho \"" + tool + " $*\" >>\"$CALLS\"\n"
		if err := os.WriteFile(filepath.Join(dir, tool), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("unshare", append([]string{"--mount", "sh", "-c", string(h), script}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "CALLS="+calls)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(script), strings.Join(args, " "), err, out)
	}
	b, err := os.ReadFile(calls)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(l, "systemctl ") {
			got = append(got, l)
		}
	}
	return got
}

// TestMaintainerScripts_Services pins what the scripts do to the services
// on a systemd host: an upgrade never stops anything (the agent's restart
// keeps the games, a world is never restarted), removal stops and
// disables, and nothing is ever enabled or started. deb passes words, rpm
// counts (%pre/%post: 1 install, 2 upgrade; %preun/%postun: 0 erase, 1
// upgrade).
func TestMaintainerScripts_Services(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	const reload = "systemctl daemon-reload"
	agentGone := []string{"systemctl stop corrosion-agent.service", "systemctl --no-reload disable corrosion-agent.service"}
	panelGone := []string{"systemctl stop corrosion-panel.service", "systemctl --no-reload disable corrosion-panel.service"}
	worldGone := []string{"systemctl stop corrosion-world@*.service", "systemctl --no-reload disable corrosion-world@.service"}
	cases := []struct {
		pkg, hook string
		args      []string
		want      []string
	}{
		{"agent", "postinstall", []string{"configure", ""}, []string{reload}},
		{"agent", "postinstall", []string{"1"}, []string{reload}},
		{"agent", "postinstall", []string{"configure", "0.1.0~dev-1"}, []string{reload, "systemctl try-restart corrosion-agent.service"}},
		{"agent", "postinstall", []string{"2"}, []string{reload, "systemctl try-restart corrosion-agent.service"}},
		{"agent", "preremove", []string{"upgrade", "0.2.0-1"}, nil},
		{"agent", "preremove", []string{"1"}, nil},
		{"agent", "preremove", []string{"failed-upgrade", "0.1.0-1"}, nil},
		{"agent", "preremove", []string{"remove"}, agentGone},
		{"agent", "preremove", []string{"0"}, agentGone},
		{"agent", "postremove", []string{"upgrade", "0.2.0-1"}, []string{reload}},
		{"agent", "postremove", []string{"1"}, []string{reload}},
		{"panel", "postinstall", []string{"configure", ""}, []string{reload}},
		{"panel", "postinstall", []string{"configure", "0.1.0~dev-1"}, []string{reload, "systemctl try-restart corrosion-panel.service"}},
		{"panel", "postinstall", []string{"2"}, []string{reload, "systemctl try-restart corrosion-panel.service"}},
		{"panel", "preremove", []string{"upgrade", "0.2.0-1"}, nil},
		{"panel", "preremove", []string{"remove"}, panelGone},
		{"panel", "preremove", []string{"0"}, panelGone},
		{"world", "postinstall", []string{"configure", ""}, []string{reload}},
		{"world", "postinstall", []string{"configure", "0.1.0~dev-1"}, []string{reload}},
		{"world", "postinstall", []string{"2"}, []string{reload}},
		{"world", "preremove", []string{"upgrade", "0.2.0-1"}, nil},
		{"world", "preremove", []string{"1"}, nil},
		{"world", "preremove", []string{"remove"}, worldGone},
		{"world", "preremove", []string{"0"}, worldGone},
	}
	rendered := renderScripts(t)
	scripts := map[string]map[string]string{}
	for _, pkg := range []string{"agent", "panel", "world"} {
		scripts[pkg] = scriptsOf(t, root, rendered, pkg)
	}
	needDebInvoke(t)
	for _, h := range []struct {
		name string
		host host
	}{{"debian", systemdHost}, {"rpm", rpmHost}} {
		for _, c := range cases {
			t.Run(h.name+"/"+c.pkg+"/"+c.hook+"/"+strings.Join(c.args, "_"), func(t *testing.T) {
				script := scripts[c.pkg][c.hook]
				if got := runScript(t, h.host, script, c.args...); !slices.Equal(got, c.want) {
					t.Errorf("%s %q ran\n  %q\nwant\n  %q", filepath.Base(script), c.args, got, c.want)
				}
			})
		}
	}
}

// TestMaintainerScripts_WithoutSystemd: in a container or chroot (no
// systemd as PID 1) the scripts start, stop and reload nothing; removal
// still disables the unit, which systemctl does offline.
func TestMaintainerScripts_WithoutSystemd(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	s := scriptsOf(t, root, renderScripts(t), "agent")
	if got := runScript(t, containerHost, s["postinstall"], "configure", "0.1.0~dev-1"); got != nil {
		t.Errorf("postinstall on upgrade ran %q without systemd, want nothing", got)
	}
	want := []string{"systemctl --no-reload disable corrosion-agent.service"}
	if got := runScript(t, containerHost, s["preremove"], "remove"); !slices.Equal(got, want) {
		t.Errorf("preremove remove ran %q without systemd, want %q", got, want)
	}
}

// needDebInvoke fails in CI and skips elsewhere when this machine has no
// deb-systemd-invoke (Debian's init-system-helpers, which is Essential).
func needDebInvoke(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("deb-systemd-invoke"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("deb-systemd-invoke: %v (Debian's init-system-helpers)", err)
		}
		t.Skip("no deb-systemd-invoke on this machine")
	}
}

// TestMaintainerScripts_PolicyRcD: on Debian, a policy-rc.d that forbids
// service actions (a chroot, an image build) stops the scripts' restart and
// stop; the daemon-reload and the offline disable still run.
func TestMaintainerScripts_PolicyRcD(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	needDebInvoke(t)
	rendered := renderScripts(t)
	for _, pkg := range []string{"agent", "panel"} {
		s := scriptsOf(t, root, rendered, pkg)
		if got, want := runScript(t, policyHost, s["postinstall"], "configure", "0.1.0~dev-1"), []string{"systemctl daemon-reload"}; !slices.Equal(got, want) {
			t.Errorf("%s postinstall on upgrade ran %q under a forbidding policy-rc.d, want %q", pkg, got, want)
		}
		want := []string{"systemctl --no-reload disable corrosion-" + pkg + ".service"}
		if got := runScript(t, policyHost, s["preremove"], "remove"); !slices.Equal(got, want) {
			t.Errorf("%s preremove ran %q under a forbidding policy-rc.d, want %q", pkg, got, want)
		}
	}
}

// overrideLine is the line lintian-overrides-<pkg> allows prerm's one
// direct systemctl call on.
var overrideLine = regexp.MustCompile(`maintainer-script-calls-systemctl \[prerm:(\d+)\]`)

// TestLintianOverrides_PrermLine: each package's lintian override names the
// line of its rendered prerm that calls systemctl directly (the offline
// disable), and no other line does, so an edit of the template that moves
// the line fails here and not only under `make package-check`.
func TestLintianOverrides_PrermLine(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	rendered := renderScripts(t)
	for _, pkg := range []string{"agent", "panel", "world"} {
		b, err := os.ReadFile(filepath.Join(root, "packaging/nfpm/lintian-overrides-"+pkg))
		if err != nil {
			t.Fatal(err)
		}
		m := overrideLine.FindSubmatch(b)
		if m == nil {
			t.Errorf("lintian-overrides-%s has no maintainer-script-calls-systemctl [prerm:N]", pkg)
			continue
		}
		prerm, err := os.ReadFile(scriptsOf(t, root, rendered, pkg)["preremove"])
		if err != nil {
			t.Fatal(err)
		}
		var calls []string
		for i, l := range strings.Split(string(prerm), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "systemctl ") {
				calls = append(calls, strconv.Itoa(i+1))
			}
		}
		if want := []string{string(m[1])}; !slices.Equal(calls, want) {
			t.Errorf("%s prerm calls systemctl on lines %v; lintian-overrides-%s allows line %v", pkg, calls, pkg, want)
		}
	}
}
