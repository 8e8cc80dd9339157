//go:build unix

package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
)

// TestAgent_UnknownInstanceAnswered: a request for an instance id the
// agent does not run gets unknown_instance on cmd and files.cmd (not NATS's
// "no responders"); a known instance and host.cmd still get exactly one
// reply; an id another agent of the license reports in its heartbeat is
// left to that agent.
func TestAgent_UnknownInstanceAnswered(t *testing.T) {
	h := newHarness(t, 60, oneGame)
	for _, subj := range []string{wire.CmdSubject(license, "nosuch"), wire.FilesCmdSubject(license, "nosuch"), wire.FilesCmdSubject(license, "host")} {
		msg := h.mustErr(h.call(subj, `{"func":"status"}`), wire.CodeUnknownInstance)
		if !strings.Contains(msg, "game1") {
			t.Errorf("%s: message %q does not list the ids the agent runs", subj, msg)
		}
		assertForPeople(t, msg)
	}

	// Exactly one reply for a known id and for host.cmd: both requests
	// share one inbox, followed by one for an unknown id. The catch-all
	// subscription handles its messages in order, so a wrong reply of it
	// to the first two would arrive before its answer to the third.
	inbox := nats.NewInbox()
	replies := make(chan *nats.Msg, 16)
	sub, err := h.nc.ChanSubscribe(inbox, replies)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	for _, subj := range []string{wire.CmdSubject(license, "game1"), wire.FilesCmdSubject(license, "game1"), wire.HostCmdSubject(license), wire.CmdSubject(license, "after")} {
		body := `{"func":"status"}`
		if strings.Contains(subj, "files") {
			body = `{"func":"fm_list","path":"."}`
		} else if subj == wire.HostCmdSubject(license) {
			body = `{"func":"ping"}`
		}
		if err := h.nc.PublishRequest(subj, inbox, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	var success, unknown int
	deadline := time.After(10 * time.Second)
	for success < 3 || unknown < 1 {
		select {
		case m := <-replies:
			var rep wire.ErrorReply
			if err := json.Unmarshal(m.Data, &rep); err != nil {
				t.Fatalf("reply is not JSON: %s", m.Data)
			}
			switch {
			case rep.Status == wire.StatusSuccess:
				success++
			case rep.Code == wire.CodeUnknownInstance && strings.Contains(rep.Message, `"after"`):
				unknown++
			default:
				t.Fatalf("unexpected reply %s", m.Data)
			}
		case <-deadline:
			t.Fatalf("got %d successes and %d unknown_instance replies, want 3 and 1", success, unknown)
		}
	}
	if success != 3 || unknown != 1 {
		t.Fatalf("got %d successes and %d unknown_instance replies, want 3 and 1", success, unknown)
	}

	// A peer agent of the license reports "peerworld": this agent leaves
	// it to the peer (which is absent here, so the request times out).
	hb, _ := json.Marshal(wire.Heartbeat{Schema: wire.Schema, Instances: []wire.InstanceReport{{ID: "peerworld", Game: "generic", State: wire.StateRunning}}})
	if err := h.nc.Publish(wire.HeartbeatSubject(license), hb); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, func() error {
		_, err := h.nc.Request(wire.CmdSubject(license, "peerworld"), []byte(`{"func":"status"}`), 300*time.Millisecond)
		if errors.Is(err, nats.ErrTimeout) {
			return nil
		}
		return fmt.Errorf("the agent still answers for its peer's instance: %v", err)
	})
}
