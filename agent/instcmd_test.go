//go:build unix

package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
)

// assertForPeople fails when a reply message shows Go internals or a host
// path: it is read by an operator.
func assertForPeople(t *testing.T, msg string, paths ...string) {
	t.Helper()
	for _, leak := range append([]string{"Go value", "Go struct", "struct {", "json:", "RawMessage", "i/o timeout"}, paths...) {
		if strings.Contains(msg, leak) {
			t.Errorf("message %q shows %q", msg, leak)
		}
	}
}

// TestAgent_RequestErrorsDescribeJSON: every request-level mistake gets a
// stable code and a message about the JSON that was sent, on host.cmd and
// on an instance's cmd alike.
func TestAgent_RequestErrorsDescribeJSON(t *testing.T) {
	h := newHarness(t, 60, oneGame)
	tests := []struct {
		name, body, code, want string
	}{
		{"array", `[{"func":"ping"}]`, wire.CodeMalformed, "request must be a JSON object, got an array"},
		{"func a number", `{"func":42}`, wire.CodeMalformed, `"func" must be a string, got a number`},
		{"null", `null`, wire.CodeMalformed, "request must be a JSON object, got null"},
		{"a string", `"ping"`, wire.CodeMalformed, "got a string"},
		{"empty", ``, wire.CodeMalformed, "empty"},
		{"not json", `ping please`, wire.CodeMalformed, "not valid JSON"},
		{"no func", `{"command":"x"}`, wire.CodeMissingFunc, "func"},
	}
	for _, subj := range []string{wire.HostCmdSubject(license), wire.CmdSubject(license, "game1")} {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				msg := h.mustErr(h.call(subj, tt.body), tt.code)
				if !strings.Contains(msg, tt.want) {
					t.Fatalf("%s: message %q lacks %q", subj, msg, tt.want)
				}
				assertForPeople(t, msg)
			})
		}
	}
	args := []struct {
		body, want string
	}{
		{`{"func":"start","wait":"yes"}`, `"wait" must be true or false, got a string`},
		{`{"func":"stop","timeout_seconds":"10"}`, `"timeout_seconds" must be a whole number in range, got a string`},
		{`{"func":"logs","lines":2.5}`, `"lines" must be a whole number in range, got 2.5`},
		{`{"func":"send","command":["a"]}`, `"command" must be a string, got an array`},
		{`{"func":"send","command":"two\nlines"}`, "line break"},
	}
	for _, tt := range args {
		msg := h.mustErr(h.cmd("game1", tt.body), wire.CodeBadArgs)
		if !strings.Contains(msg, tt.want) {
			t.Errorf("%s: message %q lacks %q", tt.body, msg, tt.want)
		}
		assertForPeople(t, msg)
	}
}

// TestAgent_SendToGameNotReadingInput: the FIFO of a game that does not
// read stdin fills; the send that does not fit is stdin_full, with no host
// path in the message, and the instance keeps answering.
func TestAgent_SendToGameNotReadingInput(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "deaf"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
args = ["-ignore-stdin"]
`)
	h.mustOK(h.cmd("deaf", `{"func":"start","wait":true}`))
	line := strings.Repeat("y", 16<<10)
	var rep map[string]any
	for i := 0; i < 8; i++ { // 8 × 16 KiB: twice a 64 KiB pipe
		rep = h.cmd("deaf", `{"func":"send","command":"`+line+`"}`)
		if rep["status"] != "success" {
			break
		}
	}
	msg := h.mustErr(rep, wire.CodeStdinFull)
	if !strings.Contains(msg, "not reading its input") {
		t.Fatalf("message %q", msg)
	}
	assertForPeople(t, msg, "/", h.dir)
	h.mustOK(h.cmd("deaf", `{"func":"status"}`))
}

// TestAgent_ReadinessNeverHangs: a start that waits longer than its
// timeout is a timeout error that carries the current status; the
// readiness budget then reports the instance running, with a notice.
func TestAgent_ReadinessNeverHangs(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "mute"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
ready_pattern = "^never printed$"
ready_timeout_seconds = 2
`)
	start := time.Now()
	rep := h.cmd("mute", `{"func":"start","wait":true,"timeout_seconds":1}`)
	msg := h.mustErr(rep, wire.CodeTimeout)
	if rep["state"] != "starting" || rep["pid"] == nil || rep["id"] != "mute" {
		t.Fatalf("timeout reply without the current status: %v", rep)
	}
	if !strings.Contains(msg, "still starting after 1s") {
		t.Fatalf("message %q", msg)
	}
	h.waitState("mute", "running")
	if el := time.Since(start); el < 2*time.Second {
		t.Fatalf("running after %v, before the 2 s readiness budget", el)
	}
	h.waitLine("mute", "readiness not seen within 2s")
	poll.True(t, 5*time.Second, "running event with the reason", func() bool {
		evs := h.events("mute")
		last := evs[len(evs)-1]
		return last.State == wire.StateRunning && strings.Contains(last.Message, "readiness not seen")
	})
}

// TestAgent_ReadinessFailRestarts: with ready_timeout_action = "fail" the
// start fails and the crash policy restarts it.
func TestAgent_ReadinessFailRestarts(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "mute"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
ready_pattern = "^never printed$"
ready_timeout_seconds = 1
ready_timeout_action = "fail"
restart = "on-crash"
`)
	h.mustOK(h.cmd("mute", `{"func":"start"}`))
	poll.True(t, 10*time.Second, "failed start and restart", func() bool {
		for _, e := range h.events("mute") {
			if e.State == wire.StateCrashed && strings.Contains(e.Message, "start failed: readiness not seen") &&
				strings.Contains(e.Message, "restarting in") {
				return true
			}
		}
		return false
	})
	h.waitLine("mute", "restarting after crash")
}

// TestAgent_GameSeesOnlyItsEnvironment: a secret in the agent's
// environment (here also used for another instance's RCON password) does
// not reach a game; the game's own env does, and so does who runs it
// (CORROSION_LICENSE_ID, CORROSION_INSTANCE_ID: an env table cannot lie).
func TestAgent_GameSeesOnlyItsEnvironment(t *testing.T) {
	t.Setenv("CORROSION_TEST_SECRET", "s3cret-value")
	h := newHarness(t, 60, `
[[instance]]
id = "nosy"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
args = ["-print-env", "CORROSION_TEST_SECRET,GIVEN,PATH,CORROSION_LICENSE_ID,CORROSION_INSTANCE_ID"]
env = { GIVEN = "yes", CORROSION_LICENSE_ID = "someone-else" }

[[instance]]
id = "other"
game = "worldsrv"
root = "{{root}}"
[instance.rcon]
port = 25510
password = "${CORROSION_TEST_SECRET}"
`)
	h.mustOK(h.cmd("nosy", `{"func":"start","wait":true}`))
	h.waitLine("nosy", "env GIVEN=yes")
	h.waitLine("nosy", "env PATH=")
	h.waitLine("nosy", "env CORROSION_TEST_SECRET unset")
	h.waitLine("nosy", "env CORROSION_LICENSE_ID="+license)
	h.waitLine("nosy", "env CORROSION_INSTANCE_ID=nosy")
	if h.hasLine("nosy", "s3cret-value") {
		t.Fatal("the agent's secret reached the game")
	}
}
