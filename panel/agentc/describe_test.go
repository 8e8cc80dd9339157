package agentc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
		words  string
	}{
		{"offline", ErrAgentOffline, http.StatusServiceUnavailable, "the agent is not connected"},
		{"wrapped offline", fmt.Errorf("send: %w", ErrAgentOffline), http.StatusServiceUnavailable, "not connected"},
		{"timeout", fmt.Errorf("x: %w", context.DeadlineExceeded), http.StatusGatewayTimeout, "did not answer in time"},
		{"plain words", &AgentError{Code: "not_running", Message: "instance game is not running"}, http.StatusConflict, "the instance is not running"},
		{"rcon auth", &AgentError{Code: "rcon_auth", Message: "auth failed"}, http.StatusBadGateway, "password"},
		{"agent's message kept", &AgentError{Code: "exists", Message: "exists: backups"}, http.StatusConflict, "exists: backups"},
		{"unknown code", &AgentError{Code: "new_code", Message: "something new"}, http.StatusBadGateway, "something new"},
		{"no message", &AgentError{Code: "odd"}, http.StatusBadGateway, "(odd)"},
		{"other", errors.New("boom"), http.StatusBadGateway, "could not be asked"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, msg := Describe(tc.err)
			if status != tc.status || !strings.Contains(msg, tc.words) {
				t.Fatalf("Describe = %d %q, want %d with %q", status, msg, tc.status, tc.words)
			}
		})
	}
}
