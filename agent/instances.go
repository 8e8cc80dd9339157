package agent

import (
	"context"
	"log/slog"
	"slices"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

// The agent's instances: agent.toml's, fixed at New, and those created
// through instance_create, added and removed while the agent runs. Every
// reader takes a snapshot (list) or looks one up (lookup) under Agent.mu.

// list is a snapshot of the instances: agent.toml's in config order, then
// the created ones in the order they were created (or loaded).
func (a *Agent) list() []*instance {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return slices.Clone(a.instances)
}

// lookup returns the instance id, or nil.
func (a *Agent) lookup(id string) *instance {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.byID[id]
}

// subscribeInstance serves inst's cmd and files.cmd subjects and keeps the
// subscriptions with it.
func (a *Agent) subscribeInstance(ctx context.Context, nc *nats.Conn, inst *instance) error {
	lic := a.cfg.Agent.LicenseID
	cmd, err := a.serve(ctx, nc, wire.CmdSubject(lic, inst.conf().ID), a.instanceFuncs(inst))
	if err != nil {
		return err
	}
	files, err := a.serve(ctx, nc, wire.FilesCmdSubject(lic, inst.conf().ID), filesFuncs(inst))
	if err != nil {
		_ = cmd.Unsubscribe()
		return err
	}
	a.mu.Lock()
	inst.subs = append(inst.subs, cmd, files)
	a.mu.Unlock()
	return nil
}

// unsubscribe ends inst's subscriptions.
func (a *Agent) unsubscribe(inst *instance) {
	a.mu.Lock()
	subs := inst.subs
	inst.subs = nil
	a.mu.Unlock()
	for _, s := range subs {
		_ = s.Unsubscribe()
	}
}

// unsubscribeInstances ends every instance's subscriptions (shutdown).
func (a *Agent) unsubscribeInstances() {
	for _, inst := range a.list() {
		a.unsubscribe(inst)
	}
}

// conf is the instance's configuration as it is now.
func (i *instance) conf() *config.Instance { return i.cfg.Load() }

// setRCON gives the instance the RCON handle of ic (none without
// [instance.rcon]) and closes the one it replaces. An instance_update that
// changes the RCON port or password takes effect this way.
func (i *instance) setRCON(ic *config.Instance, log *slog.Logger) {
	var h *rconHandle
	if ic.RCON != nil {
		h = newRCONHandle(ic, i.console, log)
		if sup := i.sup; sup != nil {
			h.inject = func(lines []string) { sup.Inject(wire.StreamStdout, lines) }
		}
	}
	if old := i.rcon.Swap(h); old != nil {
		old.close()
	}
}
