package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/store"
)

// Kind is a kind of message ingest handles (a metrics label).
type Kind string

// The kinds.
const (
	KindHeartbeat    Kind = "heartbeat"
	KindGoingOffline Kind = "going_offline"
	KindStatus       Kind = "status"
)

// MaxInstances bounds the instances one heartbeat may report.
const MaxInstances = 1000

// ErrMalformed is wrapped by every decode error.
var ErrMalformed = errors.New("malformed message")

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, a...))
}

// parseSubject parses a subject (wire.ParseSubject) and checks its kind.
func parseSubject(subject string, kind wire.SubjectKind) (wire.Subject, error) {
	s, err := wire.ParseSubject(subject)
	if err != nil {
		return wire.Subject{}, malformed("%v", err)
	}
	if s.Kind != kind {
		return wire.Subject{}, malformed("subject %q is not a %s subject", subject, kind)
	}
	return s, nil
}

// knownState reports whether s is a state of the wire protocol.
func knownState(s wire.State) bool {
	switch s {
	case wire.StateRunning, wire.StateStopped, wire.StateStarting, wire.StateStopping, wire.StateCrashed,
		wire.StateConfigured, wire.StateMissingRoot:
		return true
	}
	return false
}

// DecodeHeartbeat decodes a heartbeat received on subject at recv into the
// row the store writes.
func DecodeHeartbeat(subject string, data []byte, recv time.Time) (store.HeartbeatRow, error) {
	sub, err := parseSubject(subject, wire.SubjectHeartbeat)
	if err != nil {
		return store.HeartbeatRow{}, err
	}
	license := sub.License
	var hb wire.Heartbeat
	if err := json.Unmarshal(data, &hb); err != nil {
		return store.HeartbeatRow{}, malformed("heartbeat from %s: %v", license, err)
	}
	if hb.Timestamp.IsZero() {
		return store.HeartbeatRow{}, malformed("heartbeat from %s has no timestamp", license)
	}
	if len(hb.Instances) > MaxInstances {
		return store.HeartbeatRow{}, malformed("heartbeat from %s reports %d instances (at most %d)", license, len(hb.Instances), MaxInstances)
	}
	seen := make(map[string]bool, len(hb.Instances))
	for _, r := range hb.Instances {
		switch {
		case !wire.ValidInstanceID(r.ID):
			return store.HeartbeatRow{}, malformed("heartbeat from %s: instance id %q is not [a-z0-9_-]{1,64}", license, r.ID)
		case seen[r.ID]:
			return store.HeartbeatRow{}, malformed("heartbeat from %s reports instance %s twice", license, r.ID)
		case !knownState(r.State):
			return store.HeartbeatRow{}, malformed("heartbeat from %s: instance %s has unknown state %q", license, r.ID, r.State)
		}
		seen[r.ID] = true
	}
	raw, err := jsonbSafe(data)
	if err != nil {
		return store.HeartbeatRow{}, malformed("heartbeat from %s: %v", license, err)
	}
	return store.HeartbeatRow{License: license, Received: recv, Heartbeat: hb, JSON: raw}, nil
}

// jsonbSafe returns data as PostgreSQL jsonb accepts it: valid UTF-8
// without \u0000. Only a heartbeat that is neither is re-encoded.
func jsonbSafe(data []byte) ([]byte, error) {
	if utf8.Valid(data) && !bytes.Contains(data, []byte(`\u0000`)) {
		return data, nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return json.Marshal(stripNUL(v))
}

// stripNUL removes NUL characters from every string (keys included) in a
// decoded JSON value.
func stripNUL(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "\x00", "")
	case []any:
		for i := range x {
			x[i] = stripNUL(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.ReplaceAll(k, "\x00", "")] = stripNUL(e)
		}
		return out
	}
	return v
}

// DecodeGoingOffline checks a going_offline beacon's subject (its payload,
// "{}", carries nothing) and returns its license.
func DecodeGoingOffline(subject string) (string, error) {
	sub, err := parseSubject(subject, wire.SubjectGoingOffline)
	if err != nil {
		return "", err
	}
	return sub.License, nil
}

// DecodeStatus decodes a status event received at recv into a timeline
// event (store.EventFromStatus: stamped by arrival when the agent's clock
// is off).
func DecodeStatus(subject string, data []byte, recv time.Time) (store.Event, error) {
	sub, err := parseSubject(subject, wire.SubjectStatus)
	if err != nil {
		return store.Event{}, err
	}
	license, instance := sub.License, sub.Instance
	var ev wire.StatusEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return store.Event{}, malformed("status of %s/%s: %v", license, instance, err)
	}
	switch {
	case ev.Timestamp.IsZero():
		return store.Event{}, malformed("status of %s/%s has no timestamp", license, instance)
	case ev.InstanceID != "" && ev.InstanceID != instance:
		return store.Event{}, malformed("status on %s names instance %q", subject, ev.InstanceID)
	case !knownState(ev.Event.State):
		return store.Event{}, malformed("status of %s/%s: unknown state %q", license, instance, ev.Event.State)
	}
	return store.EventFromStatus(license, instance, ev, recv), nil
}
