package steam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// fakeSteam is a fake steamcmd with a depot: app 258550 with builds 100
// and 101 on public, 200 on "staging", 300 on "locked" (password "hunter2").
type fakeSteam struct {
	bin, home, depot string
}

func newFakeSteam(t *testing.T) *fakeSteam {
	t.Helper()
	f := &fakeSteam{bin: testbin.Build(t, "./tools/fakesteamcmd"), home: t.TempDir(), depot: t.TempDir()}
	for _, b := range []struct{ branch, build string }{{"public", "100"}, {"public", "101"}, {"staging", "200"}, {"locked", "300"}} {
		dir := filepath.Join(f.depot, "258550", b.branch, b.build)
		for name, body := range map[string]string{
			"RustDedicated":          "server " + b.build,
			"RustDedicated_Data/a":   strings.Repeat("a", 1000),
			"RustDedicated_Data/b":   strings.Repeat("b", 2000),
			"Bundles/shared/c.bytes": "c",
		} {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(f.depot, "258550", "locked", ".password"), []byte("hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// runner is a Runner on the fake with mode set for the first failRuns runs
// (0: every run).
func (f *fakeSteam) runner(mode string, failRuns int) *Runner {
	env := append(testbin.Env(), "FAKESTEAMCMD_HOME="+f.home, "FAKESTEAMCMD_DEPOT="+f.depot, "FAKESTEAMCMD_MODE="+mode)
	if failRuns > 0 {
		env = append(env, "FAKESTEAMCMD_FAIL_RUNS="+strconv.Itoa(failRuns))
	}
	return &Runner{Path: f.bin, Home: f.home, Env: env, Limit: time.Minute, Attempts: 3, Log: newTestLogger(io.Discard),
		Backoff: func(int) time.Duration { return time.Millisecond }}
}

// runs is how many times the fake ran.
func (f *fakeSteam) runs(t *testing.T) int {
	b, err := os.ReadFile(filepath.Join(f.home, "fakesteamcmd.runs"))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(string(b))
	return n
}

// lines collects a run's streamed lines.
type lines struct {
	mu sync.Mutex
	l  []string // guarded by mu
}

func (l *lines) add(s string) { l.mu.Lock(); l.l = append(l.l, s); l.mu.Unlock() }

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.l, "\n")
}

func wantCode(t *testing.T, err error, code string) *Error {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) || se.Code != code {
		t.Fatalf("error %v (%#v), want code %s", err, err, code)
	}
	return se
}

// Success: the files installed, the manifest confirms the build, the
// progress lines streamed.
func TestUpdate_Success(t *testing.T) {
	f := newFakeSteam(t)
	dir := t.TempDir()
	var out lines
	m, err := f.runner("", 0).Update(context.Background(), UpdateRequest{Dir: dir, App: "258550", WantBuild: "101"}, out.add)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if m.BuildID != "101" || m.HalfFinished() {
		t.Errorf("manifest %+v", m)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "RustDedicated")); err != nil || string(b) != "server 101" {
		t.Errorf("installed file: %q, %v", b, err)
	}
	for _, want := range []string{"Loading Steam API...OK", "Update state (0x61) downloading, progress: 100.00", "Success! App '258550' fully installed."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in the streamed lines:\n%s", want, out.String())
		}
	}
	if _, err := f.runner("", 0).Update(context.Background(), UpdateRequest{Dir: dir, App: "258550", WantBuild: "102"}, nil); err == nil ||
		!strings.Contains(err.Error(), "build 101, not 102") {
		t.Errorf("a build other than the one wanted: %v", err)
	}
}

// A beta with its password: installed; the password appears in no line,
// log or error.
func TestUpdate_BetaPasswordNeverShown(t *testing.T) {
	f := newFakeSteam(t)
	dir := t.TempDir()
	var out lines
	r := f.runner("", 0)
	var logged strings.Builder
	r.Log = newTestLogger(&logged)
	m, err := r.Update(context.Background(), UpdateRequest{Dir: dir, App: "258550", Beta: "locked", BetaPassword: "hunter2"}, out.add)
	if err != nil || m.BuildID != "300" || m.Beta != "locked" {
		t.Fatalf("%+v, %v\n%s", m, err, out.String())
	}
	_, err = r.Update(context.Background(), UpdateRequest{Dir: dir, App: "258550", Beta: "locked", BetaPassword: "wrong1"}, out.add)
	wantCode(t, err, CodeFailed)
	for what, s := range map[string]string{"lines": out.String(), "log": logged.String(), "error": err.Error()} {
		if strings.Contains(s, "hunter2") || strings.Contains(s, "wrong1") {
			t.Errorf("the password shows in the %s:\n%s", what, s)
		}
	}
	if !strings.Contains(logged.String(), "-betapassword xxxxx") {
		t.Errorf("the log does not show the masked argv:\n%s", logged.String())
	}
}

// Each fatal state: its code, one run only, the line it rests on in the
// message.
func TestUpdate_FatalStates(t *testing.T) {
	for _, tc := range []struct{ mode, code, line string }{
		{"disk_full", CodeDiskFull, "state is 0x202 after update job"},
		{"disk_full_212", CodeDiskFull, "state is 0x212 after update job"},
		{"no_subscription", CodeNoSubscription, "(No subscription)"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			f := newFakeSteam(t)
			_, err := f.runner(tc.mode, 0).Update(context.Background(), UpdateRequest{Dir: t.TempDir(), App: "258550"}, nil)
			se := wantCode(t, err, tc.code)
			if se.Attempts != 1 || f.runs(t) != 1 || !strings.Contains(se.Msg, tc.line) || se.Exit != 8 {
				t.Errorf("attempts %d, runs %d, exit %d, message %q", se.Attempts, f.runs(t), se.Exit, se.Msg)
			}
		})
	}
}

// Each retryable state: retried until the attempts run out (its code),
// or until steamcmd behaves (success).
func TestUpdate_RetriedStates(t *testing.T) {
	for _, tc := range []struct{ mode, code string }{
		{"network", CodeNetwork}, {"network_602", CodeNetwork}, {"state_606", CodeFailed},
		{"state_626", CodeFailed}, {"missing_config", CodeFailed}, {"self_update", CodeFailed},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			f := newFakeSteam(t)
			var waits []int
			r := f.runner(tc.mode, 0)
			r.Backoff = func(n int) time.Duration { waits = append(waits, n); return time.Millisecond }
			_, err := r.Update(context.Background(), UpdateRequest{Dir: t.TempDir(), App: "258550"}, nil)
			se := wantCode(t, err, tc.code)
			if se.Attempts != 3 || f.runs(t) != 3 || fmt.Sprint(waits) != "[1 2]" || !strings.Contains(se.Msg, "after 3 attempts") {
				t.Errorf("attempts %d, runs %d, backoffs %v, message %q", se.Attempts, f.runs(t), waits, se.Msg)
			}

			f = newFakeSteam(t)
			dir := t.TempDir()
			m, err := f.runner(tc.mode, 2).Update(context.Background(), UpdateRequest{Dir: dir, App: "258550"}, nil)
			if err != nil || m.BuildID != "101" || f.runs(t) != 3 {
				t.Errorf("failing twice, then fine: %+v, %v, runs %d", m, err, f.runs(t))
			}
		})
	}
}

// Exit 0 and "Success!" with a half-finished manifest is not a success.
func TestUpdate_HalfFinishedIsNoSuccess(t *testing.T) {
	f := newFakeSteam(t)
	dir := t.TempDir()
	_, err := f.runner("half_finished", 0).Update(context.Background(), UpdateRequest{Dir: dir, App: "258550"}, nil)
	se := wantCode(t, err, CodeFailed)
	if se.Exit != 0 || !strings.Contains(se.Msg, "half-finished") {
		t.Errorf("exit %d, message %q", se.Exit, se.Msg)
	}
	m, err := Installed(dir, "258550")
	if err != nil || !m.HalfFinished() {
		t.Errorf("Installed after a half-finished download: %+v, %v", m, err)
	}
}

// A hang past the limit: steam_timeout, and steamcmd's whole process
// group (its helper too) is gone.
func TestUpdate_HangKilledAtLimit(t *testing.T) {
	f := newFakeSteam(t)
	r := f.runner("hang", 0)
	r.Limit = 1500 * time.Millisecond
	var out lines
	start := time.Now()
	_, err := r.Update(context.Background(), UpdateRequest{Dir: t.TempDir(), App: "258550"}, out.add)
	se := wantCode(t, err, CodeTimeout)
	if took := time.Since(start); took > 20*time.Second || se.Attempts != 1 {
		t.Errorf("took %v, attempts %d", took, se.Attempts)
	}
	m := regexp.MustCompile(`helper pid (\d+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no helper pid in the output:\n%s", out.String())
	}
	pid, _ := strconv.Atoi(m[1])
	poll.Until(t, 10*time.Second, func() error {
		if !testbin.Ended(pid) {
			return fmt.Errorf("steamcmd's helper %d still runs", pid)
		}
		return nil
	})

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err = f.runner("hang", 0).Update(ctx, UpdateRequest{Dir: t.TempDir(), App: "258550"}, nil)
	wantCode(t, err, CodeCanceled)
}

// Requests steamcmd would misread are refused before it runs.
func TestUpdateRequest_Args(t *testing.T) {
	args, err := UpdateRequest{Dir: "/srv/x", App: "258550", Beta: "staging", BetaPassword: "pw", Validate: true, Platform: "windows"}.Args()
	want := "+@sSteamCmdForcePlatformType windows +force_install_dir /srv/x +login anonymous +app_update 258550 -beta staging -betapassword pw validate +quit"
	if err != nil || strings.Join(args, " ") != want {
		t.Errorf("argv %q, %v", args, err)
	}
	args, _ = UpdateRequest{Dir: "/srv/x", App: "258550"}.Args()
	if strings.Join(args, " ") != "+force_install_dir /srv/x +login anonymous +app_update 258550 +quit" {
		t.Errorf("plain argv %q", args)
	}
	for name, req := range map[string]UpdateRequest{
		"relative dir":          {Dir: "x", App: "1"},
		"app not a number":      {Dir: "/x", App: "1 +quit"},
		"beta with a plus":      {Dir: "/x", App: "1", Beta: "+quit"},
		"password without beta": {Dir: "/x", App: "1", BetaPassword: "secret9"},
		"password with a blank": {Dir: "/x", App: "1", Beta: "b", BetaPassword: "secret9 +quit"},
		"platform":              {Dir: "/x", App: "1", Platform: "macos"},
	} {
		_, err := req.Args()
		if err == nil || strings.Contains(err.Error(), "secret9") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// UpdateCheck: installed vs available; a stale appinfo.vdf is removed
// first, so a new build on Steam is seen.
func TestUpdateCheck(t *testing.T) {
	f := newFakeSteam(t)
	r := f.runner("", 0)
	dir := t.TempDir()
	ctx := context.Background()
	c, err := r.UpdateCheck(ctx, dir, "258550", "", nil)
	if err != nil || c != (Check{Available: "101", UpdateAvailable: true}) {
		t.Fatalf("not installed: %+v, %v", c, err)
	}
	if _, err := r.Update(ctx, UpdateRequest{Dir: dir, App: "258550"}, nil); err != nil {
		t.Fatal(err)
	}
	c, err = r.UpdateCheck(ctx, dir, "258550", "public", nil)
	if err != nil || c != (Check{Installed: "101", Available: "101"}) {
		t.Fatalf("up to date: %+v, %v", c, err)
	}
	// Steam gets build 102; the fake's cache still says 101.
	if err := os.MkdirAll(filepath.Join(f.depot, "258550", "public", "102"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err = r.UpdateCheck(ctx, dir, "258550", "", nil)
	if err != nil || c != (Check{Installed: "101", Available: "102", UpdateAvailable: true}) {
		t.Fatalf("new build: %+v, %v", c, err)
	}
	c, err = r.UpdateCheck(ctx, dir, "258550", "staging", nil)
	if err != nil || c.Available != "200" || !c.UpdateAvailable {
		t.Fatalf("beta branch: %+v, %v", c, err)
	}
	_, err = r.UpdateCheck(ctx, dir, "258550", "nosuch", nil)
	if se := wantCode(t, err, CodeNoBranch); !strings.Contains(se.Msg, "locked, public, staging") {
		t.Errorf("message %q", se.Msg)
	}
	if _, err := f.runner("half_finished", 0).Update(ctx, UpdateRequest{Dir: dir, App: "258550"}, nil); err == nil {
		t.Fatal("half-finished update succeeded")
	}
	c, err = r.UpdateCheck(ctx, dir, "258550", "", nil)
	if err != nil || c != (Check{Installed: "101", Available: "102", UpdateAvailable: true, HalfFinished: true}) {
		t.Fatalf("half-finished: %+v, %v", c, err)
	}
	_, err = f.runner("", 0).AppInfo(ctx, "999", nil)
	wantCode(t, err, CodeFailed)
}

// A steamcmd that is not there: steam_failed, naming the program by its
// file name only.
func TestUpdate_NoSteamCMD(t *testing.T) {
	dir := t.TempDir()
	r := &Runner{Path: filepath.Join(dir, "steamcmd.sh"), Log: newTestLogger(io.Discard)}
	_, err := r.Update(context.Background(), UpdateRequest{Dir: dir, App: "258550"}, nil)
	se := wantCode(t, err, CodeFailed)
	if !strings.HasPrefix(se.Msg, "start steamcmd.sh: ") || strings.Contains(se.Msg, dir) {
		t.Errorf("message %q", se.Msg)
	}
}
