package livestate

import (
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

func TestDecode(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name, subject, data string
		kind                Kind
		err                 string
	}{
		{"heartbeat", "corrosion.lic-a.host.heartbeat", `{"schema":2,"host":{"hostname":"h"}}`, KindHeartbeat, ""},
		{"beacon", "corrosion.lic-a.host.going_offline", `{}`, KindGoingOffline, ""},
		{"beacon without body", "corrosion.lic-a.host.going_offline", ``, KindGoingOffline, ""},
		{"status", "corrosion.lic-a.world10.status", `{"instance_id":"world10","event":{"state":"running"}}`, KindStatus, ""},
		{"status without instance id", "corrosion.lic-a.world10.status", `{"event":{"state":"stopped"}}`, KindStatus, ""},
		{"status of another instance", "corrosion.lic-a.world10.status", `{"instance_id":"world11","event":{"state":"running"}}`, 0, "on the subject of"},
		{"status without state", "corrosion.lic-a.world10.status", `{"instance_id":"world10","event":{}}`, 0, "without a state"},
		{"bad json", "corrosion.lic-a.host.heartbeat", `{"schema":`, 0, "decode heartbeat"},
		{"null status", "corrosion.lic-a.world10.status", `null`, 0, "without a state"},
		{"bad license", "corrosion.lic a.host.heartbeat", `{}`, 0, "unexpected subject"},
		{"bad instance", "corrosion.lic-a.World10.status", `{}`, 0, "unexpected subject"},
		{"host is not an instance", "corrosion.lic-a.host.status", `{"event":{"state":"running"}}`, 0, "unexpected subject"},
		{"console", "corrosion.lic-a.world10.console", `{}`, 0, "unexpected subject"},
		{"short", "corrosion.lic-a", `{}`, 0, "unexpected subject"},
		{"other prefix", "other.lic-a.host.heartbeat", `{}`, 0, "unexpected subject"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := Decode(c.subject, []byte(c.data), now)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != c.kind || ev.License != "lic-a" || !ev.Received.Equal(now) {
				t.Fatalf("event %+v", ev)
			}
			if c.kind == KindStatus && (ev.Instance != "world10" || ev.Status == nil || !ev.Status.Event.State.Settled() && ev.Status.Event.State != wire.StateStarting) {
				t.Fatalf("status event %+v", ev)
			}
		})
	}
}

// FuzzDecode: whatever an agent (or anyone on NATS) publishes, Decode
// answers with an event or an error, never a panic, and a decoded event
// always names a valid license (and instance).
func FuzzDecode(f *testing.F) {
	f.Add("corrosion.lic-a.host.heartbeat", []byte(`{"schema":2,"instances":[{"id":"a","state":"running"}]}`))
	f.Add("corrosion.lic-a.w1.status", []byte(`{"instance_id":"w1","event":{"state":"crashed","exit_code":1}}`))
	f.Add("corrosion.lic-a.host.going_offline", []byte(``))
	f.Fuzz(func(t *testing.T, subject string, data []byte) {
		ev, err := Decode(subject, data, time.Unix(0, 0))
		if err != nil {
			return
		}
		if !wire.ValidLicenseID(ev.License) {
			t.Fatalf("decoded license %q", ev.License)
		}
		switch ev.Kind {
		case KindHeartbeat:
			if ev.Heartbeat == nil {
				t.Fatal("heartbeat without body")
			}
		case KindStatus:
			if ev.Status == nil || !wire.ValidInstanceID(ev.Instance) || ev.Status.Event.State == "" {
				t.Fatalf("status event %+v", ev)
			}
		case KindGoingOffline:
		default:
			t.Fatalf("kind %d", ev.Kind)
		}
	})
}
