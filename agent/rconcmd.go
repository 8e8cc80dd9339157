package agent

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/agent/wire"
)

// CodeRCONNotConfigured is the error code of rcon on an instance without
// an [instance.rcon] table.
const CodeRCONNotConfigured = "rcon_not_configured"

// rconHandle holds an instance's RCON client, created on first use.
type rconHandle struct {
	cfg *config.Instance // immutable
	pub *countingSink    // immutable; the instance's console, counting lines
	log *slog.Logger     // immutable

	inject func(lines []string) // set before first use; nil: publish directly

	mu     sync.Mutex
	client *rcon.Client // guarded by mu
}

func newRCONHandle(ic *config.Instance, pub *countingSink, log *slog.Logger) *rconHandle {
	return &rconHandle{cfg: ic, pub: pub, log: log}
}

func (h *rconHandle) get() (*rcon.Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.client != nil {
		return h.client, nil
	}
	rc := h.cfg.RCON
	c, err := rcon.New(rcon.Config{
		Kind: rcon.Kind(rc.Kind), Port: rc.Port, Password: rc.Password,
		OnBroadcast: h.broadcast, Logger: h.log.With("instance", h.cfg.ID),
	})
	if err != nil {
		return nil, err
	}
	h.client = c
	return c, nil
}

// broadcast forwards WebRCON chat/log frames to the console, so nothing
// the server says is lost.
func (h *rconHandle) broadcast(text string) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if h.inject != nil {
		h.inject(lines)
		return
	}
	out := make([]wire.ConsoleLine, len(lines))
	for i, l := range lines {
		out[i] = wire.ConsoleLine{Stream: wire.StreamStdout, Text: l}
	}
	h.pub.Console(h.cfg.ID, out)
}

func (h *rconHandle) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.client != nil {
		_ = h.client.Close()
		h.client = nil
	}
}

// rconStopTimeout bounds sending a stop command over RCON.
const rconStopTimeout = 10 * time.Second

// rconStop sends command over the instance's RCON (a graceful stop of
// kind rcon); the supervisor falls back to the stop signal on an error.
func (i *instance) rconStop(command string) error {
	h := i.rcon.Load()
	if h == nil {
		return errors.New("no rcon configured")
	}
	c, err := h.get()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), rconStopTimeout)
	defer cancel()
	_, err = c.Exec(ctx, command)
	return err
}

// rconExec serves the rcon func, recording it in the request metrics.
func rconExec(ctx context.Context, inst *instance, req wire.Request) (any, error) {
	start := time.Now()
	out, err := rconRun(ctx, inst, req)
	inst.metrics.observe(kindRCON, inst.conf().ID, wire.FuncRCON, time.Since(start), err)
	return out, err
}

func rconRun(ctx context.Context, inst *instance, req wire.Request) (any, error) {
	var args struct {
		Command *string `json:"command"`
	}
	if err := req.Decode(&args); err != nil {
		return nil, err
	}
	if args.Command == nil || strings.TrimSpace(*args.Command) == "" {
		return nil, wire.Errorf(wire.CodeBadArgs, `rcon needs a non-empty "command"`)
	}
	h := inst.rcon.Load()
	if h == nil {
		return nil, wire.Errorf(CodeRCONNotConfigured, "instance %s has no [instance.rcon] configuration", inst.conf().ID)
	}
	if inst.sup != nil {
		if st := inst.sup.Status().State; st != wire.StateRunning && st != wire.StateStarting {
			return nil, wire.Errorf(wire.CodeNotRunning, "instance %s is %s; rcon needs a running server", inst.conf().ID, st)
		}
	}
	c, err := h.get()
	if err != nil {
		return nil, wire.Errorf(CodeRCONNotConfigured, "instance %s: %v", inst.conf().ID, err)
	}
	out, err := c.Exec(ctx, *args.Command)
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return nil, err
		}
		return nil, wire.Errorf(rcon.Code(err), "rcon %s: %v", inst.conf().ID, err)
	}
	return wire.RCONReply{Output: out}, nil
}
