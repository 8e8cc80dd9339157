package wire

import (
	"errors"
	"testing"
)

func TestParseSubject(t *testing.T) {
	for _, tc := range []struct {
		subject string
		want    Subject
	}{
		{"corrosion.demo.host.heartbeat", Subject{License: "demo", Kind: SubjectHeartbeat}},
		{"corrosion.Lic-1_x.host.going_offline", Subject{License: "Lic-1_x", Kind: SubjectGoingOffline}},
		{"corrosion.demo.host.cmd", Subject{License: "demo", Kind: SubjectHostCmd}},
		{"corrosion.demo.world10.cmd", Subject{License: "demo", Instance: "world10", Kind: SubjectCmd}},
		{"corrosion.demo.world10.status", Subject{License: "demo", Instance: "world10", Kind: SubjectStatus}},
		{"corrosion.demo.world10.console", Subject{License: "demo", Instance: "world10", Kind: SubjectConsole}},
		{"corrosion.demo.world10.files.cmd", Subject{License: "demo", Instance: "world10", Kind: SubjectFilesCmd}},
	} {
		t.Run(tc.subject, func(t *testing.T) {
			got, err := ParseSubject(tc.subject)
			if err != nil || got != tc.want {
				t.Fatalf("ParseSubject = %+v, %v; want %+v", got, err, tc.want)
			}
			if got.String() != tc.subject {
				t.Fatalf("String() = %q", got.String())
			}
		})
	}
	for _, bad := range []string{"", "corrosion", "corrosion.demo.host", "nats.demo.host.heartbeat",
		"corrosion.de mo.host.heartbeat", "corrosion..host.heartbeat", "corrosion.demo.host.status",
		"corrosion.demo.host.console", "corrosion.demo.World10.status", "corrosion.demo.world10.heartbeat",
		"corrosion.demo.world10.status.x", "corrosion.demo.world10.files.list", "corrosion.demo.*.status",
		"corrosion.demo.host.heartbeat.extra.x", "corrosion.demo.host.files.cmd"} {
		if s, err := ParseSubject(bad); !errors.Is(err, ErrSubject) {
			t.Errorf("ParseSubject(%q) = %+v, %v; want ErrSubject", bad, s, err)
		}
	}
}

// FuzzParseSubject: never panics; what it accepts has valid ids and a
// known kind, and prints back as the same subject.
func FuzzParseSubject(f *testing.F) {
	for _, s := range []string{"corrosion.demo.host.heartbeat", "corrosion.demo.world10.files.cmd",
		"corrosion.demo.host.cmd", "corrosion.a.b.status", "corrosion..host.cmd", "corrosion.x.host.files.cmd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, subject string) {
		s, err := ParseSubject(subject)
		if err != nil {
			return
		}
		if !ValidLicenseID(s.License) || (s.Instance != "" && !ValidInstanceID(s.Instance)) {
			t.Fatalf("accepted bad ids: %+v", s)
		}
		if s.String() != subject {
			t.Fatalf("%q parsed to %+v, prints %q", subject, s, s.String())
		}
	})
}
