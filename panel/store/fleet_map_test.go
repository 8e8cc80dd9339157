package store

import (
	"slices"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// The heartbeat mapping is pure: tested without a database or a clock.
func TestHostFromHeartbeat_ClampsAndNamesImpossibleValues(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f := func(v float64) *float64 { return &v }
	u := func(v uint64) *uint64 { return &v }
	cores := 2
	for _, tc := range []struct {
		name  string
		host  wire.HostInfo
		inst  *float64
		notes []string
		check func(Host) bool
	}{
		{"sane", wire.HostInfo{CPUPercent: f(12.5), MemTotalMB: u(100), MemUsedMB: u(50)}, f(150), nil,
			func(h Host) bool { return *h.CPUPercent == 12.5 && *h.MemUsedMB == 50 }},
		{"negative cpu", wire.HostInfo{CPUPercent: f(-55.5)}, nil, []string{"cpu -55.5 %"},
			func(h Host) bool { return *h.CPUPercent == 0 }},
		{"cpu above 100", wire.HostInfo{CPUPercent: f(101)}, nil, []string{"cpu 101 %"},
			func(h Host) bool { return *h.CPUPercent == 100 }},
		{"memory used above total", wire.HostInfo{MemTotalMB: u(100), MemUsedMB: u(150)}, nil, []string{"memory used 150 MB of 100 MB"},
			func(h Host) bool { return *h.MemUsedMB == 100 && *h.MemTotalMB == 100 }},
		{"disk free above size", wire.HostInfo{Disks: []wire.Disk{{Mount: "/", TotalMB: 10, FreeMB: 20}}}, nil, []string{"disk / free 20 MB of 10 MB"},
			func(h Host) bool { return *h.DiskFreeMB == 10 }},
		{"instance busier than the cores", wire.HostInfo{}, f(250), []string{"game1 cpu 250 %"}, func(Host) bool { return true }},
		{"negative instance cpu", wire.HostInfo{}, f(-1), []string{"game1 cpu -1 %"}, func(Host) bool { return true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.host.CPUCores = &cores
			r := HeartbeatRow{License: "lic", Received: now, Heartbeat: wire.Heartbeat{Timestamp: now, Host: tc.host,
				Instances: []wire.InstanceReport{{ID: "game1", State: wire.StateRunning, CPUPercent: tc.inst}}}}
			h := HostFromHeartbeat(Host{License: "lic"}, r)
			if !slices.Equal(h.Impossible, tc.notes) || !tc.check(h) || h.ClockSkew != 0 {
				t.Fatalf("host %+v, notes %q; want notes %q", h, h.Impossible, tc.notes)
			}
			in := InstanceFromReport(Instance{}, &r, r.Heartbeat.Instances[0])
			if tc.inst != nil && (*in.CPUPercent < 0 || *in.CPUPercent > 200) {
				t.Fatalf("instance cpu %v not clamped to 0…200", *in.CPUPercent)
			}
		})
	}
}

func TestAgentTime_OrdersBySkewedClocksByArrival(t *testing.T) {
	recv := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		stamped time.Time
		want    time.Time
		skew    time.Duration
	}{
		{"in step", recv.Add(-2 * time.Second), recv.Add(-2 * time.Second), 0},
		{"at the bound", recv.Add(MaxClockSkew), recv.Add(MaxClockSkew), 0},
		{"ahead", recv.Add(MaxClockSkew + time.Second), recv, MaxClockSkew + time.Second},
		{"behind", recv.Add(-time.Hour), recv, -time.Hour},
		{"year 9999", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), recv, time.Duration(1<<63 - 1)},
		{"zero", time.Time{}, recv, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := AgentTime(tc.stamped, recv); !got.Equal(tc.want) {
				t.Errorf("AgentTime = %v, want %v", got, tc.want)
			}
			if got := ClockSkew(tc.stamped, recv); got != tc.skew {
				t.Errorf("ClockSkew = %v, want %v", got, tc.skew)
			}
			ev := EventFromStatus("lic", "w", wire.StatusEvent{Timestamp: tc.stamped, Event: wire.StateEvent{State: wire.StateCrashed}}, recv)
			if !ev.At.Equal(tc.want) {
				t.Errorf("EventFromStatus At = %v, want %v", ev.At, tc.want)
			}
		})
	}
}
