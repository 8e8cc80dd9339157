package health

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestDecode_DocumentedExample(t *testing.T) {
	b, err := os.ReadFile("testdata/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode("ether.health.10", b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Node != 10 || s.Sessions != 2000 || s.PMsDroppedBy["offline"] != 9 || len(s.Peers) != 2 || s.Peers[1] != 12 ||
		!s.LoginLockOK() || s.DBRTTMillis != 0.21 || s.LoginLockReplicas != 3 || s.Time.IsZero() {
		t.Fatalf("decoded %+v", s)
	}
}

func TestDecode_Refuses(t *testing.T) {
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
		{"agent with a dot", "ether.health.10", strings.Replace(good, `{`, `{"agent":{"license_id":"a.b","instance_id":"e"},`, 1), "license id"},
		{"world url not http", "ether.health.10", strings.Replace(good, `{`, `{"world":{"public_url":"javascript:alert(1)"},`, 1), "public url"},
		{"world instance alone", "ether.health.10", strings.Replace(good, `{`, `{"world":{"instance_id":"w10"},`, 1), "license id"},
		{"too long", "ether.health.10", good + strings.Repeat(" ", MaxBytes), "more than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.subject, []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	if _, err := Decode("a.b", nil); !errors.Is(err, ErrNotHealth) {
		t.Fatalf("got %v, want ErrNotHealth", err)
	}
}

// FuzzDecode: anything either decodes to a snapshot whose node and
// cluster are the subject's and that survives its own re-encoding, or is
// refused; never a panic.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, subject string, data []byte) {
		s, err := Decode(subject, data)
		if err != nil {
			return
		}
		cluster, node, perr := ParseSubject(subject)
		if perr != nil || s.Cluster != cluster || s.Node != node || (s.WorldLink != LinkUp && s.WorldLink != LinkDown) {
			t.Fatalf("accepted %q on %q as %+v", data, subject, s)
		}
		back, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(subject, back); err != nil && len(back) <= MaxBytes {
			t.Fatalf("refused its own re-encoding %s: %v", back, err)
		}
	})
}

func TestSubject_RoundTrip(t *testing.T) {
	cluster, node, err := ParseSubject(Subject("ether", 11))
	if err != nil || cluster != "ether" || node != 11 {
		t.Fatalf("ParseSubject(Subject(ether, 11)) = %q, %d, %v", cluster, node, err)
	}
}
