package netserve

import (
	"errors"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// closeHandshakeWait bounds how long a WebSocket end waits for the peer's
// close frame after sending its own; then the socket is closed anyway.
const closeHandshakeWait = time.Second

// closeReason is why the server ends a connection on purpose. Over
// WebSocket it is the close frame's status code (RFC 6455 section 7.4.1;
// docs/world-protocol.md has the table); over TCP the connection just
// closes. A connection dropped at once (a slow or dead peer, Close after
// its deadline) has no reason and no close frame.
type closeReason uint32

const (
	closeNormal      closeReason = iota // the engine is done: Logout, kick, idle, a refused login
	closeShutdown                       // the world is stopping
	closeProtocol                       // a message that is not one frame, a payload that does not decode, a first frame not Login
	closeUnsupported                    // a text message
	closePolicy                         // flooding: the inbound queue was full
	closeTooBig                         // a length over proto.MaxPayload, a message over proto.MaxFrame
	closeBusy                           // the engine's accept queue was full
)

// closeFrames holds each reason's close frame: status code and a short
// reason text (at most 123 bytes).
var closeFrames = [...]struct {
	code websocket.StatusCode
	text string
}{
	closeNormal:      {websocket.StatusNormalClosure, ""},
	closeShutdown:    {websocket.StatusGoingAway, "world shutting down"},
	closeProtocol:    {websocket.StatusProtocolError, "malformed frame"},
	closeUnsupported: {websocket.StatusUnsupportedData, "binary messages only"},
	closePolicy:      {websocket.StatusPolicyViolation, "too many frames"},
	closeTooBig:      {websocket.StatusMessageTooBig, "frame too large"},
	closeBusy:        {websocket.StatusTryAgainLater, "world busy"},
}

// badFrameReason is the reason to close for a read error, and whether the
// error was the client's fault (a frame it should not have sent) at all.
func badFrameReason(err error) (closeReason, bool) {
	switch {
	case errors.Is(err, proto.ErrTooLarge), errors.Is(err, websocket.ErrMessageTooBig):
		return closeTooBig, true
	case errors.Is(err, errBadMessage):
		return closeUnsupported, true
	case errors.Is(err, proto.ErrBadFrame):
		return closeProtocol, true
	}
	return closeNormal, false
}
