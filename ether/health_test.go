package ether_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/internal/poll"
)

// checkHealth waits for a snapshot showing one session, one allowed login
// check, one dropped PM and peer 11.
func checkHealth(t *testing.T, snaps *nats.Subscription) {
	t.Helper()
	var h health.Snapshot
	var raw map[string]any
	var data []byte
	poll.Until(t, wait, func() error {
		msg, err := snaps.NextMsg(time.Second)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(msg.Data, &h); err != nil {
			t.Fatalf("health is not JSON: %v: %s", err, msg.Data)
		}
		_ = json.Unmarshal(msg.Data, &raw)
		data = msg.Data
		if h.Sessions != 1 || h.LoginChecksAllowed != 1 || h.PMsDropped != 1 || !slices.Equal(h.Peers, []int{11}) {
			return notYet("snapshot %s", msg.Data)
		}
		return nil
	})
	// Node ids are numbers, as the docs show, not a base64 string ("Cw==").
	if !strings.Contains(string(data), `"peers":[11]`) {
		t.Errorf("snapshot peers are not [11]: %s", data)
	}
	if h.LoginLock != "ok" || h.LoginLockReplicas != 1 {
		t.Errorf("login lock %q with %d replicas, want ok with 1", h.LoginLock, h.LoginLockReplicas)
	}
	if h.Node != 10 || h.WorldLink != "up" || !h.DBUp || !h.NATSConnected || h.Cluster != "t" || h.Instance == "" {
		t.Fatalf("snapshot %+v", h)
	}
	for _, k := range []string{"node", "world_link", "sessions", "frames_in_per_s", "frames_out_per_s", "pms_delivered",
		"pms_dropped", "login_checks_allowed", "login_checks_denied", "db_rtt_ms", "nats_rtt_ms", "peers", "login_lock", "login_lock_replicas"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("health JSON lacks %q", k)
		}
	}
}

func checkMetrics(t *testing.T, addr string) {
	t.Helper()
	body := get(t, "http://"+addr+"/metrics")
	for _, want := range []string{
		"ether_sessions 1",
		`ether_login_checks_total{result="allowed"} 1`,
		`ether_pms_total{result="offline"} 1`,
		"ether_world_link_up 1",
		"ether_peers 1",
		"ether_db_up 1",
		"ether_login_lock_up 1",
		"ether_login_lock_replicas 1",
		`ether_node_info{cluster="t",node="10"} 1`,
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	var h health.Snapshot
	body = get(t, "http://"+addr+"/health")
	if err := json.Unmarshal([]byte(body), &h); err != nil || h.Node != 10 {
		t.Fatalf("/health: %+v, %v", h, err)
	}
	if !strings.Contains(body, `"peers":[11]`) || !strings.Contains(body, `"login_lock":"ok"`) {
		t.Errorf("/health peers or login lock: %s", body)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return string(b)
}
