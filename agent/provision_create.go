package agent

import (
	"context"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/agent/wire"
)

// maxLabel bounds a created instance's label (characters).
const maxLabel = 100

// instanceCreate answers instance_create: it checks everything first (id,
// template, values, program, ports, root) and only then creates the root,
// stores the record and starts serving the instance, so a refusal leaves
// nothing behind. Provisioning funcs run one at a time (provMu).
func (a *Agent) instanceCreate(_ context.Context, args *wire.InstanceCreateRequest) (any, error) {
	if err := a.checkNewID(args.ID); err != nil {
		return nil, err
	}
	if err := checkLabel(args.Label); err != nil {
		return nil, err
	}
	rec := provRecord{Version: provRecordVersion, ID: args.ID, Template: args.Template,
		TemplateTOML: args.TemplateTOML, Values: args.Values, Label: args.Label, Created: time.Now().UTC()}
	p, ic, err := a.prepareCreated(rec)
	if err != nil {
		return nil, err
	}
	rec = p.rec
	rec.Values = p.spec.Values // the complete set, defaults filled
	p.rec = rec
	if err := a.checkPorts(rec.ID, &p.tmpl, &p.spec, nil); err != nil {
		return nil, err
	}
	inst, err := a.addCreated(rec, p, ic)
	if err != nil {
		return nil, err
	}
	if err := a.serveNew(inst); err != nil {
		return nil, err
	}
	a.log.Info("instance created", "instance", rec.ID, "template", rec.Template)
	return wire.InstanceCreateReply{ID: rec.ID, Template: rec.Template, Root: ic.Root, Ports: wirePorts(p.spec.Ports)}, nil
}

// checkNewID refuses an id that is not an instance id or that is taken.
func (a *Agent) checkNewID(id string) error {
	if !wire.ValidInstanceID(id) {
		return fieldErr(wire.CodeBadID, "id", `%q is not a valid instance id (want [a-z0-9_-]{1,64}, not "host")`, id)
	}
	if inst := a.lookup(id); inst != nil {
		return fieldErr(wire.CodeInstanceExists, "id", "instance %s already exists on this host", id)
	}
	return nil
}

func checkLabel(label string) error {
	if !utf8.ValidString(label) || utf8.RuneCountInString(label) > maxLabel {
		return fieldErr(wire.CodeInvalidValue, "label", "the label must be UTF-8 text of at most %d characters", maxLabel)
	}
	for _, r := range label {
		if r < 0x20 || r == 0x7f {
			return fieldErr(wire.CodeInvalidValue, "label", "the label must not hold control characters")
		}
	}
	return nil
}

// addCreated creates the instance's root, stores its record and builds its
// parts; on any failure it undoes what it did.
func (a *Agent) addCreated(rec provRecord, p *provisioned, ic *config.Instance) (*instance, error) {
	made, err := a.makeRoot(rec.ID)
	if err != nil {
		return nil, err
	}
	undoRoot := func() {
		if made {
			_ = os.Remove(ic.Root)
		}
	}
	if err := a.saveRecord(rec); err != nil {
		undoRoot()
		return nil, wire.Errorf(wire.CodeInternal, "%v", err)
	}
	inst, err := a.newInstance(ic)
	if err == nil && inst.sup != nil {
		_, err = inst.sup.Adopt() // a fresh state dir: nothing to adopt, but never a stale record
	}
	if err != nil {
		_ = a.removeRecord(rec.ID)
		_ = os.RemoveAll(filepath.Join(a.cfg.Agent.StateDir, "instances", rec.ID))
		undoRoot()
		return nil, wire.Errorf(wire.CodeInternal, "create instance %s: %v", rec.ID, err)
	}
	inst.prov = p
	a.mu.Lock()
	a.instances = append(a.instances, inst)
	a.byID[rec.ID] = inst
	a.mu.Unlock()
	return inst, nil
}

// serveNew subscribes a new instance's subjects, and flushes so the
// server has them before instance_create replies.
func (a *Agent) serveNew(inst *instance) error {
	a.mu.RLock()
	live := a.live
	a.mu.RUnlock()
	if live.nc == nil {
		return nil // not serving yet: subscribe serves every instance
	}
	if err := a.subscribeInstance(live.ctx, live.nc, inst); err != nil {
		return wire.Errorf(wire.CodeInternal, "serve instance %s: %v", inst.conf().ID, err)
	}
	if err := live.nc.Flush(); err != nil {
		a.log.Warn("flush after create", "instance", inst.conf().ID, "err", err)
	}
	return nil
}

func wirePorts(ps []template.BoundPort) []wire.BoundPortInfo {
	out := make([]wire.BoundPortInfo, 0, len(ps))
	for _, p := range ps {
		out = append(out, wire.BoundPortInfo{Name: p.Name, Protocol: string(p.Protocol), Port: p.Port})
	}
	return out
}

// provisioned answers, for instance id, its rendered spec and its root,
// and whether it is a created instance (false for an agent.toml one or an
// unknown id). The spec is the one rendered by the last instance_update.
func (a *Agent) provisioned(id string) (template.Spec, string, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	inst := a.byID[id]
	if inst == nil || inst.prov == nil {
		return template.Spec{}, "", false
	}
	return inst.prov.spec, inst.conf().Root, true
}
