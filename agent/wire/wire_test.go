package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantFn  string
		wantErr error
	}{
		{"ok", `{"func":"status"}`, "status", nil},
		{"extra fields", `{"func":"rcon","command":"say hi"}`, "rcon", nil},
		{"missing func", `{"command":"x"}`, "", ErrMissingFunc},
		{"empty func", `{"func":""}`, "", ErrMissingFunc},
		{"null func", `{"func":null}`, "", ErrMissingFunc},
		{"number func", `{"func":1}`, "", ErrMalformed},
		{"array", `["func"]`, "", ErrMalformed},
		{"truncated", `{"func":"st`, "", ErrMalformed},
		{"empty", ``, "", ErrMalformed},
		{"null", `null`, "", ErrMalformed},
		{"string", `"status"`, "", ErrMalformed},
		{"trailing garbage", `{"func":"status"} x`, "", ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := DecodeRequest([]byte(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if req.Func != tt.wantFn {
				t.Fatalf("func = %q, want %q", req.Func, tt.wantFn)
			}
		})
	}
}

// TestDecodeRequest_MessagesDescribeJSON: an operator reads these messages;
// they describe the JSON that was sent, never Go types.
func TestDecodeRequest_MessagesDescribeJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"array", `[{"func":"status"}]`, "request must be a JSON object, got an array"},
		{"number func", `{"func":42}`, `"func" must be a string, got a number`},
		{"object func", `{"func":{"a":1}}`, `"func" must be a string, got an object`},
		{"null", `null`, "request must be a JSON object, got null"},
		{"string", ` "status" `, "request must be a JSON object, got a string"},
		{"empty", "  ", "the request is empty"},
		{"truncated", `{"func":"st`, "not valid JSON"},
		{"missing func", `{"command":"x"}`, `names no func`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRequest([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to say %q", err, tt.want)
			}
			assertNoGoTypes(t, err.Error())
		})
	}
}

// TestRequestDecode_FieldTypeMessages: a field of the wrong type is
// bad_args, named with its JSON types.
func TestRequestDecode_FieldTypeMessages(t *testing.T) {
	var args struct {
		Wait    bool     `json:"wait"`
		Lines   int      `json:"lines"`
		Command *string  `json:"command"`
		Paths   []string `json:"paths"`
	}
	tests := []struct {
		in, want string
	}{
		{`{"func":"start","wait":"yes"}`, `"wait" must be true or false, got a string`},
		{`{"func":"logs","lines":"many"}`, `"lines" must be a whole number in range, got a string`},
		{`{"func":"logs","lines":1.5}`, `"lines" must be a whole number in range, got 1.5`},
		{`{"func":"send","command":7}`, `"command" must be a string, got a number`},
		{`{"func":"x","paths":{"a":1}}`, `"paths" must be an array, got an object`},
		{`{"func":"start","wait":1}`, `"wait" must be true or false, got a number`},
	}
	for _, tt := range tests {
		req, err := DecodeRequest([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		err = req.Decode(&args)
		if !errors.Is(err, ErrBadArgs) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want bad args saying %q", tt.in, err, tt.want)
			continue
		}
		assertNoGoTypes(t, err.Error())
	}
}

func assertNoGoTypes(t *testing.T, msg string) {
	t.Helper()
	for _, leak := range []string{"Go ", "struct", "json:", "RawMessage", "*", "int", "bool"} {
		if strings.Contains(msg, leak) {
			t.Errorf("message %q shows Go internals (%q)", msg, leak)
		}
	}
}

func TestEncodeError_PayloadFields(t *testing.T) {
	err := fmt.Errorf("start w: %w", &Error{Code: CodeTimeout, Msg: "still starting after 1s",
		Payload: InstanceStatus{ID: "w", State: StateStarting, Managed: true}})
	var rep struct {
		Status
		InstanceStatus
	}
	if jerr := json.Unmarshal(EncodeError(err), &rep); jerr != nil {
		t.Fatal(jerr)
	}
	if rep.Code != CodeTimeout || rep.State != StateStarting || rep.ID != "w" ||
		rep.Message != "start w: still starting after 1s" {
		t.Fatalf("decoded %+v", rep)
	}
}

func TestEncodeError_Codes(t *testing.T) {
	tests := []struct {
		err  error
		code string
	}{
		{Errorf(CodeBusy, "busy"), CodeBusy},
		{ErrMissingFunc, CodeMissingFunc},
		{errors.Join(ErrMalformed), CodeMalformed},
		{ErrBadArgs, CodeBadArgs},
		{errors.New("boom"), CodeInternal},
		{UnknownFunc("x", []string{"a", "b"}), CodeUnknownFunc},
	}
	for _, tt := range tests {
		var rep ErrorReply
		if err := json.Unmarshal(EncodeError(tt.err), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Status != StatusError || rep.Code != tt.code || rep.Message == "" {
			t.Errorf("%v → %+v, want code %s", tt.err, rep, tt.code)
		}
	}
}

func TestEncodeSuccess(t *testing.T) {
	b, err := EncodeSuccess(map[string]any{"output": "hi"})
	if err != nil || string(b) != `{"status":"success","output":"hi"}` {
		t.Fatalf("%s %v", b, err)
	}
	if b, _ := EncodeSuccess(nil); string(b) != `{"status":"success"}` {
		t.Fatalf("%s", b)
	}
	if b, _ := EncodeSuccess(struct{}{}); string(b) != `{"status":"success"}` {
		t.Fatalf("%s", b)
	}
	if _, err := EncodeSuccess([]int{1}); err == nil {
		t.Fatal("a non-object payload was accepted")
	}
}

func TestIDs(t *testing.T) {
	for id, ok := range map[string]bool{"world10": true, "a-b_c": true, "host": false, "Host": false, "": false,
		strings.Repeat("a", 64): true, strings.Repeat("a", 65): false, "a.b": false, "a*": false} {
		if ValidInstanceID(id) != ok {
			t.Errorf("ValidInstanceID(%q) != %v", id, ok)
		}
	}
	for id, ok := range map[string]bool{"Demo-1_x": true, "a.b": false, "": false, "a b": false, "a>": false} {
		if ValidLicenseID(id) != ok {
			t.Errorf("ValidLicenseID(%q) != %v", id, ok)
		}
	}
}

// FuzzDecodeRequest: any input either decodes to a non-empty func whose
// arguments decode again, or yields one of the documented errors; an error
// reply is always valid JSON with a code. Never a panic.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"func":"status"}`, `{"func":"rcon","command":"x"}`, `{}`, `[]`, `{"func":1}`,
		`{"func":"logs","lines":-1}`, "\x00", `{"func":"\u0000"}`, `{"func":"a","func":"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := DecodeRequest(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrMissingFunc) {
				t.Fatalf("undocumented error %v", err)
			}
			var rep ErrorReply
			if jerr := json.Unmarshal(EncodeError(err), &rep); jerr != nil || rep.Code == "" {
				t.Fatalf("bad error reply for %q: %v", data, jerr)
			}
			return
		}
		if req.Func == "" {
			t.Fatal("decoded an empty func")
		}
		var args struct {
			Lines int `json:"lines"`
		}
		_ = req.Decode(&args) // may fail with ErrBadArgs, must not panic
	})
}

// TestReplies_DecodeAsThePanelWill: a success reply decodes into the reply
// type and its Status head at once.
func TestReplies_DecodeAsThePanelWill(t *testing.T) {
	code := 137
	b, err := EncodeSuccess(InstanceStatus{ID: "w", State: StateStopped, ExitCode: &code, CrashCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Status
		InstanceStatus
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Err() != nil || rep.State != StateStopped || *rep.ExitCode != 137 || rep.CrashCount != 2 {
		t.Fatalf("decoded %+v", rep)
	}
	var e Status
	if err := json.Unmarshal(EncodeError(Errorf(CodeBusy, "busy now")), &e); err != nil {
		t.Fatal(err)
	}
	var we *Error
	if err := e.Err(); !errors.As(err, &we) || we.Code != CodeBusy || we.Msg != "busy now" {
		t.Fatalf("error reply decoded to %v", e.Err())
	}
}

// TestProbeReport_OutboundUnchanged: the inbound probe's fields are
// omitted from the agent's outbound report, so its heartbeat keeps the
// seed's bytes; an inbound report carries them.
func TestProbeReport_OutboundUnchanged(t *testing.T) {
	ts := time.Date(2026, 6, 11, 17, 58, 0, 0, time.UTC)
	out := ProbeReport{Timestamp: ts, Results: []ProbeResult{
		{Name: "corrosion-cdn", Host: "cdn.corrosionmgmt.com", Port: 443, OK: true, LatencyMS: new(18.0)},
		{Name: "panel", Host: "127.0.0.1", Port: 7780, Error: "connection refused"},
	}}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"timestamp":"2026-06-11T17:58:00Z","results":[` +
		`{"name":"corrosion-cdn","host":"cdn.corrosionmgmt.com","port":443,"ok":true,"latency_ms":18},` +
		`{"name":"panel","host":"127.0.0.1","port":7780,"ok":false,"error":"connection refused"}]}`
	if string(b) != want {
		t.Fatalf("outbound report\n got %s\nwant %s", b, want)
	}
	in := ProbeReport{Timestamp: ts, Direction: DirectionInbound, Results: []ProbeResult{{Name: "query", Host: "203.0.113.7",
		Port: 28017, OK: true, LatencyMS: new(23.5), Protocol: "udp", Check: "a2s_info", Server: "s", Players: new(0), MaxPlayers: new(100)}}}
	if b, err = json.Marshal(in); err != nil {
		t.Fatal(err)
	}
	want = `{"timestamp":"2026-06-11T17:58:00Z","direction":"inbound","results":[{"name":"query","host":"203.0.113.7",` +
		`"port":28017,"ok":true,"latency_ms":23.5,"protocol":"udp","check":"a2s_info","server":"s","players":0,"max_players":100}]}`
	if string(b) != want {
		t.Fatalf("inbound report\n got %s\nwant %s", b, want)
	}
}

// A refusal of one field names it in the reply, for a form to show the
// error beside that field.
func TestEncodeError_Field(t *testing.T) {
	err := &Error{Code: CodeInvalidValue, Msg: "MAX_PLAYERS: must be at most 500", Field: "MAX_PLAYERS"}
	var rep ErrorReply
	if jerr := json.Unmarshal(EncodeError(err), &rep); jerr != nil {
		t.Fatal(jerr)
	}
	if rep.Code != CodeInvalidValue || rep.Field != "MAX_PLAYERS" || rep.Status != StatusError {
		t.Fatalf("reply = %+v", rep)
	}
	if b := EncodeError(Errorf(CodeBusy, "busy")); strings.Contains(string(b), `"field"`) {
		t.Fatalf("a refusal without a field says field: %s", b)
	}
}
