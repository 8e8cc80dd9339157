// Package agentc is the panel's client of its agents over NATS: one typed
// request-reply helper for every func of the wire protocol (host.cmd,
// {instance}.cmd, files.cmd), mapping the agent's error replies to errors
// that keep the agent's message and code. Only panel packages import it.
package agentc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
)

// DefaultTimeout bounds a request when the context has no deadline.
const DefaultTimeout = 10 * time.Second

// ErrAgentOffline is returned when no agent answers on the subject.
var ErrAgentOffline = errors.New("the agent is not connected")

// AgentError is an error reply from an agent: its message and stable code.
type AgentError struct {
	Code    string
	Message string
}

func (e *AgentError) Error() string { return e.Message }

// Client sends requests to agents.
type Client struct {
	nc *nats.Conn // immutable after New
}

// New returns a client on the connection.
func New(nc *nats.Conn) *Client { return &Client{nc: nc} }

// Instance calls func fn of an instance ({license}.{instance}.cmd) with the
// request's other fields from args (a struct or map, may be nil), decoding
// a success reply into reply (may be nil).
func (c *Client) Instance(ctx context.Context, license, instance, fn string, args, reply any) error {
	return c.Call(ctx, wire.CmdSubject(license, instance), fn, args, reply)
}

// Files calls an fm_* func of an instance's jailed file manager.
func (c *Client) Files(ctx context.Context, license, instance, fn string, args, reply any) error {
	return c.Call(ctx, wire.FilesCmdSubject(license, instance), fn, args, reply)
}

// Host calls func fn (ping, probe, sysinfo) of a license's agent.
func (c *Client) Host(ctx context.Context, license, fn string, args, reply any) error {
	return c.Call(ctx, wire.HostCmdSubject(license), fn, args, reply)
}

// Call sends {"func": fn, ...args} to subject and decodes the reply.
func (c *Client) Call(ctx context.Context, subject, fn string, args, reply any) error {
	body, err := encode(fn, args)
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	msg, err := c.nc.RequestWithContext(ctx, subject, body)
	if errors.Is(err, nats.ErrNoResponders) {
		return ErrAgentOffline
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", subject, fn, err)
	}
	return decode(msg.Data, reply)
}

func encode(fn string, args any) ([]byte, error) {
	fields := map[string]json.RawMessage{}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("encode %s arguments: %w", fn, err)
		}
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("encode %s arguments: not an object: %w", fn, err)
		}
	}
	name, _ := json.Marshal(fn)
	fields["func"] = name
	return json.Marshal(fields)
}

func decode(data []byte, reply any) error {
	var head struct {
		Status  string `json:"status"`
		Message string `json:"message"`
		Code    string `json:"code"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("agent reply is not JSON: %w", err)
	}
	switch head.Status {
	case wire.StatusSuccess:
	case wire.StatusError:
		return &AgentError{Code: head.Code, Message: head.Message}
	default:
		return fmt.Errorf("agent reply has status %q", head.Status)
	}
	if reply == nil {
		return nil
	}
	if err := json.Unmarshal(data, reply); err != nil {
		return fmt.Errorf("decode agent reply: %w", err)
	}
	return nil
}
