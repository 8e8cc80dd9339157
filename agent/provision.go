package agent

import (
	"context"

	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/agent/wire"
)

// Provisioning: the host funcs that create, update and delete instances
// from templates (issue 19; docs/agent.md "Provisioning"). Each is refused
// with CodeProvisioningDisabled unless [agent] provisioning is on.

// provisioningOn is nil when [agent] provisioning is on, else the refusal.
func (a *Agent) provisioningOn() error {
	if !a.cfg.Agent.Provisioning {
		return wire.Errorf(wire.CodeProvisioningDisabled,
			"provisioning is off on this host (set provisioning = true in [agent] of agent.toml)")
	}
	return nil
}

// provFunc is the handler of a provisioning func whose request is R: the
// request decoded, provisioning on, and one provisioning func at a time
// (provMu), so two creates of one id cannot both win.
func provFunc[R any](a *Agent, do func(ctx context.Context, req *R) (any, error)) handler {
	return func(ctx context.Context, req wire.Request) (any, error) {
		var args R
		if err := req.Decode(&args); err != nil {
			return nil, err
		}
		if err := a.provisioningOn(); err != nil {
			return nil, err
		}
		a.provMu.Lock()
		defer a.provMu.Unlock()
		return do(ctx, &args)
	}
}

// templates answers the templates func: the built-in templates, as the
// panel's New server form needs them.
func (a *Agent) templates() (any, error) {
	if err := a.provisioningOn(); err != nil {
		return nil, err
	}
	ts, err := template.Builtins()
	if err != nil {
		return nil, wire.Errorf(wire.CodeInternal, "%v", err)
	}
	out := wire.TemplatesReply{Templates: make([]wire.TemplateInfo, 0, len(ts))}
	for i := range ts {
		out.Templates = append(out.Templates, templateInfo(&ts[i]))
	}
	return out, nil
}

// templateInfo is t as the wire shows it; a secret's default stays here.
func templateInfo(t *template.Template) wire.TemplateInfo {
	info := wire.TemplateInfo{ID: t.ID, Name: t.Name, Game: t.Game, Version: t.Version, Description: t.Description,
		Variables: make([]wire.TemplateVariable, 0, len(t.Variables)), Ports: make([]wire.TemplatePort, 0, len(t.Ports))}
	for i := range t.Variables {
		v := &t.Variables[i]
		tv := wire.TemplateVariable{Key: v.Key, Name: v.Name, Description: v.Description, Type: string(v.Type),
			Default: string(v.Default), Required: v.Required, Min: v.Min, Max: v.Max, MaxLength: v.MaxLength,
			Pattern: v.Pattern, Options: v.Options, Visible: v.Visible(), Editable: v.Editable(),
			RestartRequired: v.RestartRequired}
		if tv.Name == "" {
			tv.Name = v.Key
		}
		if v.Type == template.TypeSecret {
			tv.Default = ""
		}
		info.Variables = append(info.Variables, tv)
	}
	for _, p := range t.Ports {
		info.Ports = append(info.Ports, wire.TemplatePort{Name: p.Name, Protocol: string(p.Protocol),
			Default: p.Default, Variable: p.Variable, Offset: p.Offset})
	}
	return info
}
