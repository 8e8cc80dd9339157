// Command fakesteamcmd stands in for Valve's steamcmd in tests, which have
// no internet. It parses steamcmd's command line (a sequence of `+command
// arg…`), prints steamcmd's lines and exits with its codes, installs an
// app from a local depot directory into force_install_dir and writes a
// real-format steamapps/appmanifest_<app>.acf. It never reads anything of
// Corrosion's: its manifest and app info are written here independently
// of the reader under test.
//
// Environment:
//
//	FAKESTEAMCMD_HOME       its own directory ("~/Steam"): appcache/appinfo.vdf,
//	                        logs/, the run counter; default: the executable's directory
//	FAKESTEAMCMD_DEPOT      the depot: <app>/<branch>/<buildid>/<files…>; the highest
//	                        build id is the branch's current build; a file
//	                        <app>/<branch>/.password makes the branch need that password
//	FAKESTEAMCMD_MODE       an error state for app_update (app_info_print for hang):
//	                        disk_full (0x202), disk_full_212, no_subscription,
//	                        network (0x402), network_602, state_606, state_626,
//	                        missing_config, self_update (exit 7 at start),
//	                        hang (a helper process and this one sleep until killed),
//	                        half_finished (half the files, an unfinished manifest,
//	                        yet "Success!" and exit 0)
//	FAKESTEAMCMD_FAIL_RUNS  the mode applies to the first N runs only (counted in
//	                        HOME), then steamcmd behaves; default: every run
//
// It is built by tests (internal/testbin) and never shipped.
package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// exitFailed is steamcmd's exit code after a failed command.
const exitFailed = 8

type fake struct {
	home     string
	depot    string
	mode     string // "" once the mode's runs are over
	dir      string // force_install_dir
	platform string
	loggedIn bool
	exit     int
}

func main() {
	if os.Getenv("FAKESTEAMCMD_ROLE") == "helper" {
		time.Sleep(time.Hour)
		return
	}
	f := &fake{home: os.Getenv("FAKESTEAMCMD_HOME"), depot: os.Getenv("FAKESTEAMCMD_DEPOT"), mode: os.Getenv("FAKESTEAMCMD_MODE")}
	if f.home == "" {
		if exe, err := os.Executable(); err == nil {
			f.home = filepath.Dir(exe)
		}
	}
	if n := f.countRun(); f.mode != "" && os.Getenv("FAKESTEAMCMD_FAIL_RUNS") != "" {
		if limit, err := strconv.Atoi(os.Getenv("FAKESTEAMCMD_FAIL_RUNS")); err == nil && n > limit {
			f.mode = ""
		}
	}
	os.Exit(f.run(os.Args[1:]))
}

// countRun adds this run to the counter in home and returns its number.
func (f *fake) countRun() int {
	p := filepath.Join(f.home, "fakesteamcmd.runs")
	b, _ := os.ReadFile(p)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	_ = os.WriteFile(p, []byte(strconv.Itoa(n)), 0o644)
	return n
}

func say(format string, args ...any) { fmt.Printf(format+"\n", args...) }

func (f *fake) run(args []string) int {
	say("Redirecting stderr to '%s'", filepath.Join(f.home, "logs", "stderr.txt"))
	say("Logging directory: '%s'", filepath.Join(f.home, "logs"))
	say("[  0%%] Checking for available updates...")
	if f.mode == "self_update" {
		say("[----] Downloading update (0 of 58,178 KB)...")
		say("[ 50%%] Downloading update (29,089 of 58,178 KB)...")
		say("[----] Download complete.")
		say("[----] Extracting package...")
		say("[----] Installing update...")
		say("[----] Cleaning up...")
		say("[----] Update complete, launching Steamcmd...")
		fmt.Fprintf(os.Stderr, "steamcmd.sh[%d]: Restarting steamcmd by request...\n", os.Getpid())
		return 7
	}
	say("[----] Verifying installation...")
	say("Steam Console Client (c) Valve Corporation - version 1716584667")
	say("-- type 'quit' to exit --")
	say("Loading Steam API...OK")
	for len(args) > 0 {
		if !strings.HasPrefix(args[0], "+") {
			args = args[1:] // steamcmd passes over words outside a command
			continue
		}
		name, rest := args[0][1:], args[1:]
		end := 0
		for end < len(rest) && !strings.HasPrefix(rest[end], "+") {
			end++
		}
		cmdArgs := rest[:end]
		args = rest[end:]
		if name == "quit" {
			say("Unloading Steam API...OK")
			return f.exit
		}
		f.command(name, cmdArgs)
	}
	// No +quit: steamcmd's prompt, until its input ends.
	in := bufio.NewScanner(os.Stdin)
	for fmt.Print("Steam>"); in.Scan(); fmt.Print("Steam>") {
		if strings.TrimSpace(in.Text()) == "quit" {
			break
		}
		fields := strings.Fields(in.Text())
		if len(fields) > 0 {
			f.command(fields[0], fields[1:])
		}
	}
	say("")
	say("Unloading Steam API...OK")
	return f.exit
}

func (f *fake) command(name string, args []string) {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch strings.ToLower(name) {
	case "@ssteamcmdforceplatformtype":
		f.platform = arg(0)
	case "@shutdownonfailedcommand", "@nopromptforpassword":
	case "force_install_dir":
		if f.loggedIn {
			say("Please use force_install_dir before logon!")
		}
		f.dir = arg(0)
	case "login":
		if arg(0) != "anonymous" {
			say("Logging in user '%s' to Steam Public...FAILED (Invalid Password)", arg(0))
			f.exit = 5
			return
		}
		say("")
		say("Connecting anonymous user to Steam Public...OK")
		say("Waiting for client config...OK")
		say("Waiting for user info...OK")
		f.loggedIn = true
	case "app_info_update":
	case "app_info_print":
		f.appInfoPrint(arg(0))
	case "app_update":
		f.appUpdate(args)
	default:
		say("Unknown command \"%s\"", name)
	}
}

// branchDir is the depot's directory of app's branch and its current
// build ("" when it has none).
func (f *fake) branchBuild(app, branch string) (dir, build string) {
	dir = filepath.Join(f.depot, app, branch)
	entries, _ := os.ReadDir(dir)
	best := -1
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() && n > best {
			best, build = n, e.Name()
		}
	}
	return dir, build
}

func (f *fake) appInfoPrint(app string) {
	if !f.loggedIn {
		say("ERROR! Not logged on.")
		f.exit = exitFailed
		return
	}
	if f.mode == "hang" {
		f.hang()
	}
	cache := filepath.Join(f.home, "appcache", "appinfo.vdf")
	if b, err := os.ReadFile(cache); err == nil {
		// steamcmd prints what its cache holds, stale or not.
		fmt.Print(string(b))
		return
	}
	branches, _ := os.ReadDir(filepath.Join(f.depot, app))
	if len(branches) == 0 {
		say("No app info for AppID %s found, requesting...", app)
		say("No app info for AppID %s found", app)
		f.exit = exitFailed
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "AppID : %s, change number : 26001234/0, last change : Fri Nov 27 18:04:11 2026\n", app)
	fmt.Fprintf(&b, "\"%s\"\n{\n\t\"common\"\n\t{\n\t\t\"name\"\t\t\"Fake App %s\"\n\t\t\"type\"\t\t\"Tool\"\n\t}\n", app, app)
	b.WriteString("\t\"depots\"\n\t{\n\t\t\"branches\"\n\t\t{\n")
	for _, e := range branches {
		if !e.IsDir() {
			continue
		}
		dir, build := f.branchBuild(app, e.Name())
		if build == "" {
			continue
		}
		fmt.Fprintf(&b, "\t\t\t\"%s\"\n\t\t\t{\n\t\t\t\t\"buildid\"\t\t\"%s\"\n\t\t\t\t\"timeupdated\"\t\t\"1795000000\"\n", e.Name(), build)
		if _, err := os.Stat(filepath.Join(dir, ".password")); err == nil {
			b.WriteString("\t\t\t\t\"pwdrequired\"\t\t\"1\"\n")
		}
		b.WriteString("\t\t\t}\n")
	}
	b.WriteString("\t\t}\n\t}\n}\n")
	_ = os.MkdirAll(filepath.Dir(cache), 0o755)
	_ = os.WriteFile(cache, []byte(b.String()), 0o644)
	fmt.Print(b.String())
}

// hang starts a helper process (as steamcmd.sh runs linux32/steamcmd) and
// sleeps with it until killed.
func (f *fake) hang() {
	say(" Update state (0x61) downloading, progress: 0.42 (4200 / 1000000)")
	exe, _ := os.Executable()
	h := exec.Command(exe)
	h.Env = append(os.Environ(), "FAKESTEAMCMD_ROLE=helper")
	if err := h.Start(); err == nil {
		say("fakesteamcmd: helper pid %d", h.Process.Pid)
	}
	time.Sleep(time.Hour)
	os.Exit(0)
}

func (f *fake) appUpdate(args []string) {
	if len(args) == 0 {
		say("Usage: app_update <appid> [-beta <betaname>] [-betapassword <password>] [validate]")
		f.exit = exitFailed
		return
	}
	app, branch, password := args[0], "public", ""
	for i := 1; i < len(args); i++ {
		switch args[i] {
		case "-beta":
			if i+1 < len(args) {
				branch, i = args[i+1], i+1
			}
		case "-betapassword":
			if i+1 < len(args) {
				password, i = args[i+1], i+1
			}
		}
	}
	if !f.loggedIn {
		say("ERROR! Not logged on.")
		f.exit = exitFailed
		return
	}
	fail := func(format string, args ...any) {
		say(format, args...)
		f.exit = exitFailed
	}
	switch f.mode {
	case "no_subscription":
		fail("ERROR! Failed to install app '%s' (No subscription)", app)
		return
	case "missing_config":
		fail("ERROR! Failed to install app '%s' (Missing configuration)", app)
		return
	case "hang":
		f.hang()
	}
	if f.dir == "" {
		f.dir = filepath.Join(f.home, "steamapps", "common", app)
	}
	if _, err := os.Stat(filepath.Join(f.depot, app)); err != nil {
		fail("ERROR! Failed to install app '%s' (No subscription)", app)
		return
	}
	bdir, build := f.branchBuild(app, branch)
	if build == "" {
		fail("ERROR! Failed to install app '%s' (Invalid beta branch)", app)
		return
	}
	if want, err := os.ReadFile(filepath.Join(bdir, ".password")); err == nil && strings.TrimSpace(string(want)) != password {
		fail("ERROR! Failed to install app '%s' (Invalid beta password)", app)
		return
	}
	src := filepath.Join(bdir, build)
	var files []string
	var total uint64
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(src, p)
			files = append(files, rel)
			if fi, err := d.Info(); err == nil {
				total += uint64(fi.Size())
			}
		}
		return nil
	})
	sort.Strings(files)
	say(" Update state (0x3) reconfiguring, progress: 0.00 (0 / 0)")
	say(" Update state (0x5) verifying install, progress: 0.00 (0 / %d)", total)
	state := map[string]string{"disk_full": "0x202", "disk_full_212": "0x212", "network": "0x402",
		"network_602": "0x602", "state_606": "0x606", "state_626": "0x626"}[f.mode]
	copyN := len(files)
	if state != "" || f.mode == "half_finished" {
		copyN = len(files) / 2
	}
	var done uint64
	for _, rel := range files[:copyN] {
		n, err := copyFile(filepath.Join(src, rel), filepath.Join(f.dir, rel))
		if err != nil {
			fail("Error! App '%s' state is 0x202 after update job.", app)
			return
		}
		done += n
		say(" Update state (0x61) downloading, progress: %.2f (%d / %d)", pct(done, total), done, total)
	}
	complete := state == "" && f.mode != "half_finished"
	if err := f.writeManifest(app, branch, build, total, done, complete); err != nil {
		fail("Error! App '%s' state is 0x202 after update job.", app)
		return
	}
	if state != "" {
		fail("Error! App '%s' state is %s after update job.", app, state)
		return
	}
	say("Success! App '%s' fully installed.", app)
}

func pct(done, total uint64) float64 {
	if total == 0 {
		return 100
	}
	return float64(done) * 100 / float64(total)
}

func copyFile(from, to string) (uint64, error) {
	b, err := os.ReadFile(from)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return 0, err
	}
	return uint64(len(b)), os.WriteFile(to, b, 0o644)
}

// writeManifest writes steamapps/appmanifest_<app>.acf as steamcmd does;
// an unfinished one has StateFlags 1026 (update required, update started)
// and the counters where the download stopped.
func (f *fake) writeManifest(app, branch, build string, total, done uint64, complete bool) error {
	flags, buildID := "4", build
	if !complete {
		flags, buildID = "1026", ""
		if old := readBuild(filepath.Join(f.dir, "steamapps", "appmanifest_"+app+".acf")); old != "" {
			buildID = old
		}
	}
	beta := ""
	if branch != "public" {
		beta = branch
	}
	var b strings.Builder
	kv := func(indent, k, v string) { fmt.Fprintf(&b, "%s\"%s\"\t\t\"%s\"\n", indent, k, v) }
	b.WriteString("\"AppState\"\n{\n")
	for _, p := range [][2]string{
		{"appid", app}, {"Universe", "1"}, {"LauncherPath", "/home/steam/steamcmd/linux32/steamcmd"},
		{"name", "Fake App " + app}, {"StateFlags", flags}, {"installdir", "fake_" + app},
		{"LastUpdated", "1795000000"}, {"LastPlayed", "0"}, {"SizeOnDisk", strconv.FormatUint(done, 10)},
		{"StagingSize", "0"}, {"buildid", buildID}, {"LastOwner", "0"}, {"UpdateResult", "0"},
		{"BytesToDownload", strconv.FormatUint(total, 10)}, {"BytesDownloaded", strconv.FormatUint(done, 10)},
		{"BytesToStage", strconv.FormatUint(total, 10)}, {"BytesStaged", strconv.FormatUint(done, 10)},
		{"TargetBuildID", build}, {"AutoUpdateBehavior", "0"}, {"AllowOtherDownloadsWhileRunning", "0"},
		{"ScheduledAutoUpdate", "0"},
	} {
		kv("\t", p[0], p[1])
	}
	b.WriteString("\t\"InstalledDepots\"\n\t{\n")
	fmt.Fprintf(&b, "\t\t\"%s1\"\n\t\t{\n", app)
	kv("\t\t\t", "manifest", "7"+build)
	kv("\t\t\t", "size", strconv.FormatUint(total, 10))
	b.WriteString("\t\t}\n\t}\n\t\"UserConfig\"\n\t{\n")
	if beta != "" {
		kv("\t\t", "BetaKey", beta)
	}
	b.WriteString("\t}\n\t\"MountedConfig\"\n\t{\n")
	if beta != "" {
		kv("\t\t", "BetaKey", beta)
	}
	b.WriteString("\t}\n}\n")
	p := filepath.Join(f.dir, "steamapps", "appmanifest_"+app+".acf")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(b.String()), 0o644)
}

// readBuild finds the buildid line of an existing manifest.
func readBuild(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == `"buildid"` {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}
