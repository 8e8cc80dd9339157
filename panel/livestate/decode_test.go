package livestate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/store"
)

// What PublishCommitted sends, DecodeCommitted returns; anything else on
// the subject is refused with the reason.
func TestDecodeCommitted(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	hb := &store.HeartbeatRow{License: "lic-a", Received: at, Heartbeat: wire.Heartbeat{Schema: wire.Schema, Timestamp: at}}
	st := &store.Event{License: "lic-a", Instance: "world10", At: at, State: wire.StateRunning}
	enc := func(ev Event) string {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []struct {
		name, subject, data string
		kind                Kind
		err                 string
	}{
		{"heartbeat", "corrosion-panel.live.lic-a", enc(Event{Kind: KindHeartbeat, License: "lic-a", Received: at, Heartbeat: hb}), KindHeartbeat, ""},
		{"beacon", "corrosion-panel.live.lic-a", enc(Event{Kind: KindGoingOffline, License: "lic-a", Received: at}), KindGoingOffline, ""},
		{"status", "corrosion-panel.live.lic-a", enc(Event{Kind: KindStatus, License: "lic-a", Instance: "world10", Received: at, Status: st}), KindStatus, ""},
		{"another license's event", "corrosion-panel.live.lic-b", enc(Event{Kind: KindGoingOffline, License: "lic-a"}), 0, "on the subject of"},
		{"status of another instance", "corrosion-panel.live.lic-a", enc(Event{Kind: KindStatus, License: "lic-a", Instance: "world11", Status: st}), 0, "malformed"},
		{"heartbeat without body", "corrosion-panel.live.lic-a", `{"kind":1,"license":"lic-a"}`, 0, "malformed"},
		{"unknown kind", "corrosion-panel.live.lic-a", `{"kind":9,"license":"lic-a"}`, 0, "malformed"},
		{"bad json", "corrosion-panel.live.lic-a", `{"kind":`, 0, "decode committed event"},
		{"an agent subject", "corrosion.lic-a.host.heartbeat", `{}`, 0, "unexpected subject"},
		{"bad license", "corrosion-panel.live.lic a", `{}`, 0, "unexpected subject"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := DecodeCommitted(c.subject, []byte(c.data))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != c.kind || ev.License != "lic-a" || !ev.Received.Equal(at) {
				t.Fatalf("event %+v", ev)
			}
		})
	}
}

// FuzzDecodeCommitted: whatever is published on the subject,
// DecodeCommitted answers with an event or an error, never a panic, and a
// decoded event always names a valid license (and instance) and carries
// its kind's body.
func FuzzDecodeCommitted(f *testing.F) {
	f.Add("corrosion-panel.live.lic-a", []byte(`{"kind":1,"license":"lic-a","heartbeat":{"License":"lic-a"}}`))
	f.Add("corrosion-panel.live.lic-a", []byte(`{"kind":3,"license":"lic-a","instance":"w1","status":{"License":"lic-a","Instance":"w1","State":"crashed"}}`))
	f.Add("corrosion-panel.live.lic-a", []byte(`{"kind":2,"license":"lic-a"}`))
	f.Fuzz(func(t *testing.T, subject string, data []byte) {
		ev, err := DecodeCommitted(subject, data)
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
			if ev.Status == nil || !wire.ValidInstanceID(ev.Instance) || ev.Status.State == "" {
				t.Fatalf("status event %+v", ev)
			}
		case KindGoingOffline:
		default:
			t.Fatalf("kind %d", ev.Kind)
		}
	})
}
