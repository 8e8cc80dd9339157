package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/supervise"
	"github.com/corrosion/corrosion/agent/wire"
)

// handler answers one func: a payload for wire.EncodeSuccess, or an error.
type handler func(ctx context.Context, req wire.Request) (any, error)

// call is one request with its fields decoded, ready to run.
type call struct {
	run      func(ctx context.Context) (any, error)
	blocking bool // run on its own goroutine so it never holds up the subscription
}

// spec is one func: it decodes the request's fields once and returns the
// call to make, which carries its own blocking rule. An error is the reply.
type spec func(req wire.Request) (call, error)

// quick is the spec of a handler that answers at once (on the
// subscription goroutine); slow, of one that may take a while.
func quick(h handler) spec { return bind(h, false) }
func slow(h handler) spec  { return bind(h, true) }

func bind(h handler, blocking bool) spec {
	return func(req wire.Request) (call, error) {
		return call{blocking: blocking, run: func(ctx context.Context) (any, error) { return h(ctx, req) }}, nil
	}
}

// funcTable maps func names to their specs.
type funcTable struct {
	funcs map[string]spec
}

func (t funcTable) names() []string {
	out := make([]string, 0, len(t.funcs))
	for n := range t.funcs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// serve subscribes subject and dispatches requests to the table. Every
// request gets a reply: malformed JSON, a missing func and an unknown func
// are errors, never silence.
func (a *Agent) serve(ctx context.Context, nc *nats.Conn, subject string, t funcTable) (*nats.Subscription, error) {
	names := t.names()
	sub, err := nc.Subscribe(subject, func(m *nats.Msg) {
		req, err := wire.DecodeRequest(m.Data)
		if err != nil {
			respond(nc, m, nil, err)
			return
		}
		sp, ok := t.funcs[req.Func]
		if !ok {
			respond(nc, m, nil, wire.UnknownFunc(req.Func, names))
			return
		}
		c, err := sp(req)
		if err != nil {
			respond(nc, m, nil, err)
			return
		}
		if c.blocking {
			go func() { p, err := c.run(ctx); respond(nc, m, p, err) }()
			return
		}
		p, err := c.run(ctx)
		respond(nc, m, p, err)
	})
	if err != nil {
		return nil, fmt.Errorf("subscribe %s: %w", subject, err)
	}
	sub.SetPendingLimits(4096, 64<<20)
	return sub, nil
}

// replyHeadroom leaves room for the reply subject and protocol overhead.
const replyHeadroom = 4 << 10

func respond(nc *nats.Conn, m *nats.Msg, payload any, err error) {
	if m.Reply == "" {
		return // a publish, not a request: nobody to answer
	}
	var body []byte
	if err == nil {
		body, err = wire.EncodeSuccess(payload)
	}
	if err != nil {
		body = wire.EncodeError(toWire(err))
	}
	if limit := nc.MaxPayload() - replyHeadroom; limit > 0 && int64(len(body)) > limit {
		body = wire.EncodeError(wire.Errorf(wire.CodeReplyTooLarge,
			"the reply (%d bytes) exceeds the NATS server's max_payload (%d bytes); ask for less, e.g. fm_read with a smaller limit",
			len(body), nc.MaxPayload()))
	}
	_ = m.Respond(body)
}

// supervisorCodes gives supervisor errors their stable wire codes.
var supervisorCodes = []struct {
	err  error
	code string
}{
	{supervise.ErrBusy, wire.CodeBusy},
	{supervise.ErrAlreadyRunning, wire.CodeAlreadyRunning},
	{supervise.ErrNotRunning, wire.CodeNotRunning},
	{supervise.ErrClosed, wire.CodeShuttingDown},
	{supervise.ErrStartFailed, wire.CodeStartFailed},
	{supervise.ErrStdinFull, wire.CodeStdinFull},
	{supervise.ErrNoStdin, wire.CodeStdinUnavailable},
	{supervise.ErrMultiLine, wire.CodeBadArgs},
	{context.Canceled, wire.CodeShuttingDown},
}

// toWire gives expected errors their stable wire codes; what is left is
// "internal".
func toWire(err error) error {
	var we *wire.Error
	if errors.As(err, &we) {
		return err
	}
	for _, c := range supervisorCodes {
		if errors.Is(err, c.err) {
			return &wire.Error{Code: c.code, Msg: err.Error()}
		}
	}
	return err
}

// subscribe serves each instance's cmd and files.cmd (subscriptions kept
// with the instance: instance_delete ends them), then the answer
// unknown_instance for every other id on the license, then host.cmd last:
// NATS processes subscriptions in order, so once ping answers, every
// subject is served.
func (a *Agent) subscribe(ctx context.Context, nc *nats.Conn) ([]*nats.Subscription, error) {
	lic := a.cfg.Agent.LicenseID
	var subs []*nats.Subscription
	add := func(subject string, t funcTable) error {
		s, err := a.serve(ctx, nc, subject, t)
		if err == nil {
			subs = append(subs, s)
		}
		return err
	}
	for _, inst := range a.list() {
		if err := a.subscribeInstance(ctx, nc, inst); err != nil {
			return nil, err
		}
	}
	unknown, err := a.serveUnknown(nc)
	if err != nil {
		return nil, err
	}
	subs = append(subs, unknown...)
	if err := add(wire.HostCmdSubject(lic), a.hostFuncs()); err != nil {
		return nil, err
	}
	return subs, nil
}
