package agentc

import (
	"context"
	"errors"
	"net/http"
)

// Describe turns an error of a request to an agent into an HTTP status and
// a sentence for the operator: the agent's own message for its error
// replies (with a few codes put in plainer words), "the agent is not
// connected" when nobody answers, and a timeout in words. The status is
// 502 for agent refusals that are the operator's to fix (409 for "not
// running"-like states), 503 offline, 504 timeout.
func Describe(err error) (status int, message string) {
	var ae *AgentError
	switch {
	case errors.As(err, &ae):
		return describeCode(ae)
	case errors.Is(err, ErrAgentOffline):
		return http.StatusServiceUnavailable, "the agent is not connected; is the host online?"
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, "the agent did not answer in time; try again"
	case errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable, "the request was cancelled"
	default:
		return http.StatusBadGateway, "the agent could not be asked; try again"
	}
}

// codeWords are plainer sentences for some agent codes; the rest keep the
// agent's message (which never names a host path).
var codeWords = map[string]string{
	"not_running":         "the instance is not running",
	"not_managed":         "the instance is not managed by the agent (no exec configured)",
	"stdin_unavailable":   "the instance has no stdin the agent can write to",
	"stdin_full":          "the game is not reading its console input; the line was not sent",
	"rcon_not_configured": "RCON is not configured for this instance (no [instance.rcon] in the agent's config)",
	"rcon_auth":           "RCON authentication failed: the password in the agent's config is wrong",
	"rcon_refused":        "nothing listens on the instance's RCON port; is the server up?",
	"rcon_timeout":        "the game server did not answer the RCON command in time",
	"root_missing":        "the instance's root directory does not exist on the host",
	"unknown_instance":    "the agent does not run this instance (it is not in the agent's config)",
}

var codeStatus = map[string]int{
	"not_running": http.StatusConflict, "not_managed": http.StatusConflict,
	"stdin_unavailable": http.StatusConflict, "stdin_full": http.StatusConflict,
	"rcon_not_configured": http.StatusConflict, "bad_args": http.StatusBadRequest,
	"rcon_bad_command": http.StatusBadRequest, "not_found": http.StatusNotFound,
	"exists": http.StatusConflict, "denied": http.StatusForbidden,
	"outside_root": http.StatusBadRequest, "invalid_path": http.StatusBadRequest,
	"too_large": http.StatusRequestEntityTooLarge, "rcon_timeout": http.StatusGatewayTimeout,
	"unknown_instance": http.StatusNotFound,
}

func describeCode(ae *AgentError) (int, string) {
	status, ok := codeStatus[ae.Code]
	if !ok {
		status = http.StatusBadGateway
	}
	if w, ok := codeWords[ae.Code]; ok {
		return status, w
	}
	if ae.Message == "" {
		return status, "the agent refused (" + ae.Code + ")"
	}
	return status, ae.Message
}
