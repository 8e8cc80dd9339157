package supervise

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestChildCreationFlags(t *testing.T) {
	cases := []struct {
		name    string
		console agentConsole
		job     agentJob
		want    uint32
	}{
		{"service, no job", agentWithoutConsole, agentJob{}, winCreateNewProcessGroup | winCreateNoWindow},
		{"console, no job", agentWithConsole, agentJob{}, winCreateNewProcessGroup},
		{"service in a job allowing breakaway", agentWithoutConsole, agentJob{In: true, Limits: winJobLimitBreakawayOK},
			winCreateNewProcessGroup | winCreateNoWindow | winCreateBreakawayFromJob},
		{"console in a job with silent breakaway", agentWithConsole,
			agentJob{In: true, Limits: winJobLimitSilentBreakawayOK | 0x2000},
			winCreateNewProcessGroup | winCreateBreakawayFromJob},
		// CreateProcess fails with the flag in a job that forbids breakaway.
		{"job without breakaway", agentWithoutConsole, agentJob{In: true, Limits: 0x2000},
			winCreateNewProcessGroup | winCreateNoWindow},
		{"limits but not in a job", agentWithoutConsole, agentJob{Limits: winJobLimitBreakawayOK},
			winCreateNewProcessGroup | winCreateNoWindow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := childCreationFlags(c.console, c.job); got != c.want {
				t.Fatalf("flags %#x, want %#x", got, c.want)
			}
		})
	}
}

func TestGameJobNames(t *testing.T) {
	got := gameJobNames(ident{PID: 4242, StartTime: 1764000000123})
	want := []string{`Global\corrosion-game-4242-1764000000123`, `Local\corrosion-game-4242-1764000000123`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("names %q, want %q", got, want)
	}
	// A reused PID (another creation time) names another job.
	if other := gameJobNames(ident{PID: 4242, StartTime: 1764000000124}); other[0] == got[0] {
		t.Fatalf("same job name for two processes: %q", other[0])
	}
}

// pipeNameRE is what Windows accepts after \\.\pipe\ (no backslash, at
// most 256 characters in all) narrowed to what we produce.
var pipeNameRE = regexp.MustCompile(`^\\\\\.\\pipe\\corrosion-[a-z0-9_-]{1,64}-[0-9a-f]{8}-[0-9a-f]+$`)

func TestStdinPipeName(t *testing.T) {
	dir := filepath.Join("C:", "ProgramData", "Corrosion", "data", "instances", "rust-main")
	a1 := stdinPipeName(dir, 1)
	if !pipeNameRE.MatchString(a1) || !strings.Contains(a1, `\corrosion-rust-main-`) || !strings.HasSuffix(a1, "-1") {
		t.Fatalf("pipe name %q", a1)
	}
	cases := []struct {
		name string
		a, b string
	}{
		{"next run", a1, stdinPipeName(dir, 2)},
		{"same id under another agent's state dir", a1,
			stdinPipeName(filepath.Join("D:", "agent2", "instances", "rust-main"), 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.a == c.b {
				t.Fatalf("two pipes share the name %q", c.a)
			}
		})
	}
	for _, odd := range []string{`Weird Name\x`, strings.Repeat("x", 300), "ünï", "a/b"} {
		n := stdinPipeName(odd, 255)
		if !pipeNameRE.MatchString(n) || len(n) > 256 {
			t.Errorf("dir %q: pipe name %q", odd, n)
		}
	}
}

func TestParseStdinRecord(t *testing.T) {
	ok := `{"process":{"pid":12,"start_time_ms":99},"handle":1324,"pipe":"\\\\.\\pipe\\corrosion-x-00000000-1"}`
	rec, err := parseStdinRecord([]byte(ok))
	if err != nil || rec.Process != (ident{PID: 12, StartTime: 99}) || rec.Handle != 1324 {
		t.Fatalf("parse %s: %+v, %v", ok, rec, err)
	}
	bad := map[string]string{
		"not json":         `{"process":`,
		"no pid":           `{"process":{"pid":0,"start_time_ms":99},"handle":1324}`,
		"negative pid":     `{"process":{"pid":-5,"start_time_ms":99},"handle":1324}`,
		"no handle":        `{"process":{"pid":12,"start_time_ms":99},"handle":0}`,
		"unaligned handle": `{"process":{"pid":12,"start_time_ms":99},"handle":1325}`,
		"huge handle":      `{"process":{"pid":12,"start_time_ms":99},"handle":4294967296}`,
		"hand-over failed": `{"process":{"pid":12,"start_time_ms":99},"handle":0,"hand_over_error":"access denied"}`,
	}
	for name, in := range bad {
		t.Run(name, func(t *testing.T) {
			if _, err := parseStdinRecord([]byte(in)); !errors.Is(err, errBadStdinRecord) {
				t.Fatalf("parse %s: %v, want errBadStdinRecord", in, err)
			}
		})
	}
}

// FuzzParseStdinRecord: stdin.json is read from disk by a restarted agent;
// whatever it holds gives a record that passes the checks or an error.
func FuzzParseStdinRecord(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "stdinrecord", "*.json"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := parseStdinRecord(b)
		if err != nil {
			if !errors.Is(err, errBadStdinRecord) {
				t.Fatalf("error %v is not errBadStdinRecord", err)
			}
			return
		}
		if rec.Process.PID <= 0 || rec.Handle == 0 || rec.Handle%4 != 0 || rec.Handle >= maxHandleValue {
			t.Fatalf("accepted %+v", rec)
		}
	})
}
