package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/supervise"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/agent/wire"
)

// createdInstance returns the created instance id with its template, or
// the refusal: bad_id, unknown_instance, host_defined (agent.toml's).
func (a *Agent) createdInstance(id string) (*instance, *provisioned, error) {
	if !wire.ValidInstanceID(id) {
		return nil, nil, fieldErr(wire.CodeBadID, "id", `%q is not a valid instance id (want [a-z0-9_-]{1,64}, not "host")`, id)
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	inst := a.byID[id]
	if inst == nil {
		e := wire.UnknownInstance(id, nil)
		e.Field = "id"
		return nil, nil, e
	}
	if inst.prov == nil {
		return nil, nil, fieldErr(wire.CodeHostDefined, "id",
			"instance %s is defined in agent.toml on its host: it is not editable from the panel", id)
	}
	return inst, inst.prov, nil
}

// instanceUpdate answers instance_update: the values given replace the
// stored ones, the template is rendered again and checked as at create,
// the record is rewritten and the supervisor gets the new config for its
// next start (a running game keeps running); the config files are edited
// again. The reply lists the variables whose value changed and those of
// them that need a restart.
func (a *Agent) instanceUpdate(_ context.Context, args *wire.InstanceUpdateRequest) (any, error) {
	inst, old, err := a.createdInstance(args.ID)
	if err != nil {
		return nil, err
	}
	rec := old.rec
	rec.Values = maps.Clone(old.rec.Values)
	maps.Copy(rec.Values, args.Values)
	if args.Label != nil {
		if err := checkLabel(*args.Label); err != nil {
			return nil, err
		}
		rec.Label = *args.Label
	}
	p, ic, err := a.prepareCreated(rec)
	if err != nil {
		return nil, err
	}
	p.rec.Values = p.spec.Values
	if err := a.checkPorts(rec.ID, &p.tmpl, &p.spec, old.spec.Ports); err != nil {
		return nil, err
	}
	if err := a.applyUpdate(inst, p, ic, old); err != nil {
		return nil, err
	}
	changed, restart := changedVars(&p.tmpl, old.rec.Values, p.spec.Values)
	a.log.Info("instance updated", "instance", rec.ID, "changed", changed)
	return wire.InstanceUpdateReply{ID: rec.ID, Changed: changed, RestartRequired: restart}, nil
}

// applyUpdate makes p (config ic) the instance's: the supervisor's config, the
// stored record, the instance's config and RCON, its spec; then edits the
// config files. When the record cannot be stored the supervisor is put
// back, so a failed update changes nothing.
func (a *Agent) applyUpdate(inst *instance, p *provisioned, ic *config.Instance, old *provisioned) error {
	if inst.sup != nil {
		if err := inst.sup.Reconfigure(ic); err != nil {
			return wire.Errorf(wire.CodeInternal, "update instance %s: %v", ic.ID, err)
		}
	}
	if err := a.saveRecord(p.rec); err != nil {
		if inst.sup != nil {
			_ = inst.sup.Reconfigure(inst.conf())
		}
		return wire.Errorf(wire.CodeInternal, "%v", err)
	}
	inst.cfg.Store(ic)
	if !sameRCON(ic, old) {
		inst.setRCON(ic, a.baseLog)
	}
	a.mu.Lock()
	inst.prov = p
	a.mu.Unlock()
	a.editConfigs(inst)
	return nil
}

// sameRCON reports whether ic's RCON is the one the old spec rendered.
func sameRCON(ic *config.Instance, old *provisioned) bool {
	c := old.spec.Console
	if ic.RCON == nil {
		return c.Kind == template.ConsoleStdin
	}
	return ic.RCON.Port == c.Port && ic.RCON.Password == c.Password
}

// changedVars lists the variables whose value differs, sorted, and those
// of them that take effect only after a restart.
func changedVars(t *template.Template, before, after map[string]string) (changed, restart []string) {
	changed = []string{}
	for _, v := range t.Variables {
		if before[v.Key] == after[v.Key] {
			continue
		}
		changed = append(changed, v.Key)
		if v.RestartRequired {
			restart = append(restart, v.Key)
		}
	}
	slices.Sort(changed)
	slices.Sort(restart)
	return changed, restart
}

// editConfigs writes the template's config_file edits into the instance's
// files (docs/templates.md: before each start, and after an update). A
// file not yet written is created; one the edit cannot read is left as
// it is. Problems are told on the instance's console and logged: the game
// reports its own config.
func (a *Agent) editConfigs(inst *instance) {
	a.mu.RLock()
	p := inst.prov
	a.mu.RUnlock()
	if p == nil || len(p.spec.Configs) == 0 {
		return
	}
	id := inst.conf().ID
	r, err := os.OpenRoot(inst.conf().Root)
	if err != nil {
		a.configProblem(inst, "config files: the instance root cannot be opened", err)
		return
	}
	defer r.Close()
	for _, c := range p.spec.Configs {
		if err := editConfig(r, c); err != nil {
			a.configProblem(inst, fmt.Sprintf("config file %s not edited", c.Path), err)
			continue
		}
		a.log.Debug("config file edited", "instance", id, "path", c.Path)
	}
}

func editConfig(r *os.Root, c template.ConfigFile) error {
	name := filepath.FromSlash(c.Path)
	content, err := r.ReadFile(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	out, err := template.Apply(c.Format, content, c.Set)
	if err != nil {
		return err
	}
	if dir := path.Dir(c.Path); dir != "." {
		if err := r.MkdirAll(filepath.FromSlash(dir), 0o750); err != nil {
			return err
		}
	}
	return r.WriteFile(name, out, 0o640)
}

func (a *Agent) configProblem(inst *instance, what string, err error) {
	a.log.Warn(what, "instance", inst.conf().ID, "err", err)
	inst.console.Console(inst.conf().ID, []wire.ConsoleLine{{Stream: wire.StreamAgent, Text: what + ": " + err.Error()}})
}

// instanceDelete answers instance_delete: a running instance is refused
// unless force, which stops it first as the stop func does (and waits for
// its exit); then the instance stops being served (its subjects answer
// unknown_instance), its record and state are removed, and with purge its
// root too (inside instances_root only, never through a symbolic link).
func (a *Agent) instanceDelete(ctx context.Context, args *wire.InstanceDeleteRequest) (any, error) {
	inst, _, err := a.createdInstance(args.ID)
	if err != nil {
		return nil, err
	}
	if args.Purge {
		if err := a.checkPurge(args.ID); err != nil {
			return nil, err
		}
	}
	// No power action may start while the instance is being deleted.
	inst.life.Lock()
	defer inst.life.Unlock()
	stopped, err := a.stopForDelete(ctx, inst, args.Force)
	if err != nil {
		return nil, err
	}
	a.forget(inst)
	rep := wire.InstanceDeleteReply{ID: args.ID, Stopped: stopped}
	if err := a.removeRecord(args.ID); err != nil {
		a.log.Error("delete instance", "instance", args.ID, "err", err)
	}
	if err := os.RemoveAll(filepath.Join(a.cfg.Agent.StateDir, "instances", args.ID)); err != nil {
		a.log.Error("delete instance state", "instance", args.ID, "err", err)
	}
	if args.Purge {
		if err := a.purgeRoot(args.ID); err != nil {
			return nil, wire.Errorf(wire.CodeInternal, "instance %s is deleted, but its files could not all be removed: %v", args.ID, err)
		}
		rep.Purged = true
	}
	a.log.Info("instance deleted", "instance", args.ID, "stopped", stopped, "purged", rep.Purged)
	return rep, nil
}

// stopForDelete refuses a running instance without force; with force it
// stops it gracefully and waits for the exit (the stop timeout, then the
// kill, and a grace). A crash restart that is pending is cancelled.
func (a *Agent) stopForDelete(ctx context.Context, inst *instance, force bool) (bool, error) {
	sup := inst.sup
	if sup == nil {
		return false, nil
	}
	st := sup.Status()
	if st.State.CanStart() { // stopped or crashed: no process
		if st.RestartIn != nil {
			_ = sup.Stop() // cancels the pending restart
		}
		return false, nil
	}
	if !force {
		return false, fieldErr(wire.CodeInstanceRunning, "force",
			"instance %s is %s: stop it first, or delete with force", inst.conf().ID, st.State)
	}
	if err := sup.Stop(); err != nil && !errors.Is(err, supervise.ErrBusy) && !errors.Is(err, supervise.ErrNotRunning) {
		return false, fmt.Errorf("stop %s: %w", inst.conf().ID, err)
	}
	wait := inst.conf().StopTimeout() + hostStopGrace
	if _, err := waitStatus(ctx, sup, wait, settled); err != nil {
		return false, wire.Errorf(wire.CodeTimeout, "instance %s did not stop within %v; nothing was deleted", inst.conf().ID, wait)
	}
	return true, nil
}

// forget removes inst from the agent: no longer listed, looked up or
// served; its supervisor detached and its RCON client closed.
func (a *Agent) forget(inst *instance) {
	id := inst.conf().ID
	a.mu.Lock()
	delete(a.byID, id)
	a.instances = slices.DeleteFunc(a.instances, func(i *instance) bool { return i == inst })
	a.mu.Unlock()
	inst.gone = true // under life, held by instanceDelete
	a.peers.forget(id)
	a.unsubscribe(inst)
	if inst.sup != nil {
		inst.sup.Close()
	}
	if rc := inst.rcon.Swap(nil); rc != nil {
		rc.close()
	}
}

// checkPurge refuses a purge whose root is not a directory of
// instances_root (a symbolic link put in its place).
func (a *Agent) checkPurge(id string) error {
	r, err := os.OpenRoot(a.cfg.Agent.InstancesRoot)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return wire.Errorf(wire.CodeInternal, "open instances_root: %v", err)
	}
	defer r.Close()
	fi, err := r.Lstat(id)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return wire.Errorf(wire.CodeInternal, "check the instance root: %v", err)
	case !fi.IsDir():
		return fieldErr(wire.CodeRootEscape, "purge", "the instance root %s in instances_root is not a directory (a symbolic link?): not purged", id)
	}
	return nil
}

// purgeRoot removes instance id's root, inside instances_root only
// (os.Root: a symbolic link inside is removed, never followed).
func (a *Agent) purgeRoot(id string) error {
	r, err := os.OpenRoot(a.cfg.Agent.InstancesRoot)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.RemoveAll(id)
}
