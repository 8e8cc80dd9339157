package ingest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/corrosion/corrosion/agent/wire"
)

func TestDecodeHeartbeat(t *testing.T) {
	recv := time.Now()
	ok := `{"schema":2,"timestamp":"2026-11-24T00:00:00Z","agent":{"version":"1"},"host":{"hostname":"h"},"instances":[{"id":"w1","state":"running"}]}`
	cases := []struct {
		name, subject, data, wantErr string
	}{
		{"ok", "corrosion.lic.host.heartbeat", ok, ""},
		{"bad license", "corrosion.l*c.host.heartbeat", ok, "license id"},
		{"instance subject", "corrosion.lic.w1.heartbeat", ok, "unknown instance subject"},
		{"extra token", "corrosion.lic.host.x.heartbeat", ok, "unknown host subject"},
		{"not json", "corrosion.lic.host.heartbeat", `{`, "heartbeat from lic"},
		{"no timestamp", "corrosion.lic.host.heartbeat", `{"schema":2}`, "no timestamp"},
		{"bad state", "corrosion.lic.host.heartbeat", strings.Replace(ok, "running", "flying", 1), "unknown state"},
		{"host instance", "corrosion.lic.host.heartbeat", strings.Replace(ok, `"w1"`, `"host"`, 1), "instance id"},
		{"duplicate", "corrosion.lic.host.heartbeat", strings.Replace(ok, `{"id":"w1","state":"running"}`, `{"id":"w1","state":"running"},{"id":"w1","state":"running"}`, 1), "twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := DecodeHeartbeat(c.subject, []byte(c.data), recv)
			if c.wantErr == "" {
				if err != nil || r.License != "lic" || !r.Received.Equal(recv) || len(r.Heartbeat.Instances) != 1 {
					t.Fatalf("got %+v, %v", r, err)
				}
				return
			}
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("err = %v, want malformed mentioning %q", err, c.wantErr)
			}
		})
	}
}

func TestDecodeHeartbeat_CleansJSONForJSONB(t *testing.T) {
	data := []byte("{\"timestamp\":\"2026-11-24T00:00:00Z\",\"host\":{\"hostname\":\"a\\u0000b\xff\"}}")
	r, err := DecodeHeartbeat("corrosion.lic.host.heartbeat", data, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(r.JSON) || strings.Contains(string(r.JSON), `\u0000`) || !json.Valid(r.JSON) {
		t.Fatalf("stored JSON %q", r.JSON)
	}
}

func TestDecodeStatus(t *testing.T) {
	ok := `{"timestamp":"2026-11-24T00:00:00Z","instance_id":"w1","event":{"state":"crashed","exit_code":3,"crash_count":2,"message":"boom"}}`
	e, err := DecodeStatus("corrosion.lic.w1.status", []byte(ok), time.Now())
	if err != nil || e.State != wire.StateCrashed || *e.ExitCode != 3 || e.CrashCount != 2 || e.Instance != "w1" {
		t.Fatalf("got %+v, %v", e, err)
	}
	for name, c := range map[string]struct{ subject, data string }{
		"other instance": {"corrosion.lic.w2.status", ok},
		"host":           {"corrosion.lic.host.status", ok},
		"no timestamp":   {"corrosion.lic.w1.status", `{"event":{"state":"running"}}`},
		"no state":       {"corrosion.lic.w1.status", `{"timestamp":"2026-11-24T00:00:00Z"}`},
		"array":          {"corrosion.lic.w1.status", `[1]`},
	} {
		if _, err := DecodeStatus(c.subject, []byte(c.data), time.Now()); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want malformed", name, err)
		}
	}
	if _, err := DecodeGoingOffline("corrosion.lic.host.going_offline"); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeGoingOffline("corrosion.lic.w1.going_offline"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("instance beacon: %v", err)
	}
}

// fuzzSeeds adds the files of testdata/seeds/<dir> to the corpus.
func fuzzSeeds(f *testing.F, dir string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "seeds", dir, "*.json"))
	if len(files) == 0 {
		f.Fatalf("no seeds in testdata/seeds/%s", dir)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzDecodeHeartbeat(f *testing.F) {
	fuzzSeeds(f, "heartbeat")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeHeartbeat("corrosion.lic.host.heartbeat", data, time.Now())
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error not malformed: %v", err)
			}
			return
		}
		if !utf8.Valid(r.JSON) || strings.Contains(string(r.JSON), `\u0000`) {
			t.Fatalf("JSON jsonb refuses: %q", r.JSON)
		}
		seen := map[string]bool{}
		for _, in := range r.Heartbeat.Instances {
			if !wire.ValidInstanceID(in.ID) || seen[in.ID] || !knownState(in.State) {
				t.Fatalf("bad instance accepted: %+v", in)
			}
			seen[in.ID] = true
		}
	})
}

func FuzzDecodeStatus(f *testing.F) {
	fuzzSeeds(f, "status")
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeStatus("corrosion.lic.w1.status", data, time.Now())
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error not malformed: %v", err)
			}
			return
		}
		if e.At.IsZero() || !knownState(e.State) || e.Instance != "w1" {
			t.Fatalf("bad event accepted: %+v", e)
		}
	})
}
