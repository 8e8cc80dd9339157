package social

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestDecodeSnapshot_DocumentedExample(t *testing.T) {
	b, err := os.ReadFile("testdata/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSnapshot("ether.health.10", b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Node != 10 || s.Sessions != 2000 || s.PMsDroppedBy["offline"] != 9 || len(s.Peers) != 2 || s.Peers[1] != 12 ||
		!s.LoginLockOK() || s.DBRTTMillis != 0.21 || s.LoginLockReplicas != 3 || s.Time.IsZero() {
		t.Fatalf("decoded %+v", s)
	}
}

func TestDecodeSnapshot_Refuses(t *testing.T) {
	good := `{"node":10,"cluster":"ether","world_link":"up","login_lock":"ok"}`
	cases := []struct {
		name, subject, data, want string
	}{
		{"not a health subject", "ether.node.10.heartbeat", good, "not a health subject"},
		{"node out of range", "ether.health.256", good, "node must be 1-255"},
		{"node with a leading zero", "ether.health.010", good, "node must be 1-255"},
		{"other cluster in the JSON", "other.health.10", good, "cluster"},
		{"other node in the JSON", "ether.health.11", good, "node 10 is not"},
		{"bad world link", "ether.health.10", strings.Replace(good, `"up"`, `"maybe"`, 1), "world_link"},
		{"not JSON", "ether.health.10", "{", "unexpected EOF"},
		{"negative sessions", "ether.health.10", strings.Replace(good, `{`, `{"sessions":-1,`, 1), "negative"},
		{"peer zero", "ether.health.10", strings.Replace(good, `{`, `{"peers":[0],`, 1), "peer 0"},
		{"too long", "ether.health.10", good + strings.Repeat(" ", MaxSnapshotBytes), "more than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeSnapshot(c.subject, []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	if _, err := DecodeSnapshot("a.b", nil); !errors.Is(err, ErrNotHealth) {
		t.Fatalf("got %v, want ErrNotHealth", err)
	}
}

// FuzzDecodeSnapshot: anything either decodes to a snapshot whose node and
// cluster are the subject's, or is refused; never a panic.
func FuzzDecodeSnapshot(f *testing.F) {
	f.Fuzz(func(t *testing.T, subject string, data []byte) {
		s, err := DecodeSnapshot(subject, data)
		if err != nil {
			return
		}
		cluster, node, perr := ParseHealthSubject(subject)
		if perr != nil || s.Cluster != cluster || s.Node != node || (s.WorldLink != LinkUp && s.WorldLink != LinkDown) {
			t.Fatalf("accepted %q on %q as %+v", data, subject, s)
		}
		c := NewCollector(nil)
		if err := c.Observe(subject, data, s.Time); err != nil {
			t.Fatalf("collector refused what the decoder accepted: %v", err)
		}
	})
}
