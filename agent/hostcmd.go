package agent

import (
	"context"

	"github.com/corrosion/corrosion/agent/wire"
)

func (a *Agent) hostFuncs() funcTable {
	return funcTable{
		funcs: map[string]handler{
			"ping": func(context.Context, wire.Request) (any, error) {
				return wire.PingReply{Version: a.build.Version, Commit: a.build.Commit,
					UptimeSeconds: a.uptimeSeconds()}, nil
			},
			"probe": func(ctx context.Context, _ wire.Request) (any, error) {
				return wire.ProbeReply{Report: a.prober.Probe(ctx)}, nil
			},
			"sysinfo": func(ctx context.Context, _ wire.Request) (any, error) {
				return wire.SysinfoReply{Snapshot: a.Heartbeat(ctx)}, nil
			},
		},
		// probe dials every target and sysinfo samples the host: keep
		// them off the subscription goroutine.
		blocking: func(req wire.Request) bool { return req.Func != "ping" },
	}
}
