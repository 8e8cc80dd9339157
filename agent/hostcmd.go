package agent

import (
	"context"

	"github.com/corrosion/corrosion/agent/wire"
)

func (a *Agent) hostFuncs() funcTable {
	// probe dials every target and sysinfo samples the host: they are
	// slow, kept off the subscription goroutine.
	return funcTable{funcs: map[string]spec{
		wire.FuncPing: quick(func(context.Context, wire.Request) (any, error) {
			return wire.PingReply{Version: a.build.Version, Commit: a.build.Commit,
				UptimeSeconds: a.uptimeSeconds()}, nil
		}),
		wire.FuncProbe: slow(func(ctx context.Context, _ wire.Request) (any, error) {
			return wire.ProbeReply{Report: a.prober.Probe(ctx)}, nil
		}),
		wire.FuncSysinfo: slow(func(ctx context.Context, _ wire.Request) (any, error) {
			return wire.SysinfoReply{Snapshot: a.Heartbeat(ctx)}, nil
		}),
		wire.FuncTemplates: quick(func(context.Context, wire.Request) (any, error) {
			return a.templates()
		}),
		// Provisioning touches the disk, binds ports and stops games.
		wire.FuncInstanceCreate: slow(provFunc(a, a.instanceCreate)),
		wire.FuncInstanceUpdate: slow(provFunc(a, a.instanceUpdate)),
		wire.FuncInstanceDelete: slow(provFunc(a, a.instanceDelete)),
	}}
}
