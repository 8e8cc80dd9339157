package ingest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/ingest"
	"github.com/corrosion/corrosion/panel/store"
)

// Values from agents are data, not truth: impossible figures are stored
// clamped and named, whatever the agent says.
func TestIngest_ImpossibleValuesClampedAndNamed(t *testing.T) {
	r := newRig(t, "", "neg", "over", "mem", "disk", "inst")
	r.startIngest(t, ingest.Config{})
	for _, tc := range []struct {
		license string
		bad     func(*wire.Heartbeat)
		check   func(store.Host, store.Instance) error
		note    string
	}{
		{"neg", func(hb *wire.Heartbeat) { hb.Host.CPUPercent = ptr(-55.5) }, func(h store.Host, _ store.Instance) error {
			return want(*h.CPUPercent == 0, "cpu %v, want 0", *h.CPUPercent)
		}, "cpu -55.5 %"},
		{"over", func(hb *wire.Heartbeat) { hb.Host.CPUPercent = ptr(250.0) }, func(h store.Host, _ store.Instance) error {
			return want(*h.CPUPercent == 100, "cpu %v, want 100", *h.CPUPercent)
		}, "cpu 250 %"},
		{"mem", func(hb *wire.Heartbeat) { hb.Host.MemUsedMB = ptr[uint64](40000) }, func(h store.Host, _ store.Instance) error {
			return want(*h.MemUsedMB == 32000, "memory used %v, want the total 32000", *h.MemUsedMB)
		}, "memory used 40000 MB of 32000 MB"},
		{"disk", func(hb *wire.Heartbeat) { hb.Host.Disks[0].FreeMB = 900000 }, func(h store.Host, _ store.Instance) error {
			return want(*h.DiskFreeMB == *h.DiskTotalMB, "disk free %v of %v", *h.DiskFreeMB, *h.DiskTotalMB)
		}, "disk / free 900000 MB of 500000 MB"},
		{"inst", func(hb *wire.Heartbeat) { hb.Instances[0].CPUPercent = ptr(5000.0) }, func(_ store.Host, in store.Instance) error {
			return want(*in.CPUPercent == 800, "instance cpu %v, want 800 (8 cores)", *in.CPUPercent)
		}, "world0 cpu 5000 %"},
	} {
		t.Run(tc.license, func(t *testing.T) {
			hb := heartbeat(time.Now(), tc.license, 1)
			tc.bad(&hb)
			publishJSON(t, r.pub, wire.HeartbeatSubject(tc.license), hb)
			poll.Until(t, 10*time.Second, func() error {
				ctx := context.Background()
				h, err := r.st.Host(ctx, tc.license)
				if err != nil || !h.Seen {
					return fmt.Errorf("host not written: %v", err)
				}
				in, err := r.st.Instance(ctx, tc.license, "world0")
				if err != nil {
					return err
				}
				if !slices.Contains(h.Impossible, tc.note) {
					return fmt.Errorf("impossible values %q, want %q named", h.Impossible, tc.note)
				}
				return tc.check(h, in)
			})
		})
	}
}

func want(ok bool, format string, a ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, a...)
}

// A status event dated far in the future does not freeze its instance:
// an agent clock off by more than store.MaxClockSkew is ordered by
// arrival, so a later heartbeat reporting running is honoured, and the
// host shows the skew.
func TestIngest_FutureDatedEventDoesNotFreezeTheInstance(t *testing.T) {
	r := newRig(t, "", "lic")
	r.startIngest(t, ingest.Config{})
	ctx := context.Background()
	state := func(st wire.State) func() error {
		return func() error {
			in, err := r.st.Instance(ctx, "lic", "world0")
			if err != nil || in.State != st {
				return fmt.Errorf("instance %+v, %v; want %s", in, err, st)
			}
			if in.StateSince.Year() > 9000 {
				return fmt.Errorf("state since %v", in.StateSince)
			}
			return nil
		}
	}
	publishJSON(t, r.pub, wire.HeartbeatSubject("lic"), heartbeat(time.Now(), "lic", 1))
	poll.Until(t, 10*time.Second, state(wire.StateRunning))
	future := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	publishJSON(t, r.pub, wire.StatusSubject("lic", "world0"), statusEvent(future, "world0", wire.StateCrashed, 1))
	poll.Until(t, 10*time.Second, state(wire.StateCrashed))
	later := heartbeat(time.Now().Add(time.Second), "lic", 1)
	later.Instances[0].PID = 2000 // restarted
	publishJSON(t, r.pub, wire.HeartbeatSubject("lic"), later)
	poll.Until(t, 10*time.Second, state(wire.StateRunning))

	publishJSON(t, r.pub, wire.HeartbeatSubject("lic"), heartbeat(time.Now().Add(-2*time.Hour), "lic", 1))
	poll.Until(t, 10*time.Second, func() error {
		h, err := r.st.Host(ctx, "lic")
		if err != nil || h.ClockSkew > -2*time.Hour+time.Minute || h.ClockSkew < -2*time.Hour-time.Minute {
			return fmt.Errorf("clock skew %v, %v; want about -2h", h.ClockSkew, err)
		}
		return nil
	})
	if err := state(wire.StateRunning)(); err != nil { // the late-stamped heartbeat counts as now
		t.Fatal(err)
	}
}
