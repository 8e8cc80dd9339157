package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestGet_LinkerValuesWin(t *testing.T) {
	old := [3]string{Version, Commit, Date}
	t.Cleanup(func() { Version, Commit, Date = old[0], old[1], old[2] })
	Version, Commit, Date = "1.2.3", "abcdef1", "2026-11-21T00:00:00Z"
	got := Get()
	if got.Version != "1.2.3" || got.Commit != "abcdef1" || got.Date != "2026-11-21T00:00:00Z" {
		t.Fatalf("Get() = %+v", got)
	}
	if s := got.String(); !strings.Contains(s, "1.2.3") || !strings.Contains(s, "abcdef1") {
		t.Fatalf("String() = %q", s)
	}
}

func TestFillFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want Info
	}{
		{
			name: "vcs settings",
			bi: debug.BuildInfo{Main: debug.Module{Version: "v2.0.0"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "0123456789abcdef0123"},
				{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
			}},
			want: Info{Version: "v2.0.0", Commit: "0123456789ab", Date: "2026-01-02T03:04:05Z"},
		},
		{
			name: "devel module",
			bi:   debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want: Info{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Info
			fillFromBuildInfo(&got, &tt.bi)
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestGet_DefaultsWhenUnknown(t *testing.T) {
	old := [3]string{Version, Commit, Date}
	t.Cleanup(func() { Version, Commit, Date = old[0], old[1], old[2] })
	Version, Commit, Date = "", "", ""
	got := Get()
	if got.Version == "" || got.Commit == "" || got.Date == "" {
		t.Fatalf("empty fields in %+v", got)
	}
}
