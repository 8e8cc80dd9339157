package ingest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/ingest"
	"github.com/corrosion/corrosion/panel/store"
)

func TestIngest_UnknownLicenseCountedAndShown(t *testing.T) {
	r := newRig(t, "", "known")
	rep := r.startIngest(t, ingest.Config{})
	for range 3 {
		publishJSON(t, r.pub, wire.HeartbeatSubject("stranger"), heartbeat(time.Now(), "stranger", 2))
	}
	publishJSON(t, r.pub, wire.StatusSubject("stranger", "world0"), statusEvent(time.Now(), "world0", wire.StateRunning, 0))
	ctx := context.Background()
	poll.Until(t, 10*time.Second, func() error {
		u, err := r.st.UnknownLicenses(ctx)
		if err != nil || len(u) != 1 || u[0].License != "stranger" || u[0].Messages != 4 || u[0].Hostname != "gs-stranger" {
			return fmt.Errorf("unknown licenses = %+v, %v", u, err)
		}
		// The metric is counted right after the commit the query sees: poll it too.
		if got := metric(t, rep.reg, "corrosion_panel_ingest_unknown_license_messages_total"); got != 4 {
			return fmt.Errorf("unknown metric = %v, want 4", got)
		}
		return nil
	})
	if hs, _ := r.st.Hosts(ctx, nilFilter()); len(hs) != 1 || hs[0].License != "known" {
		t.Fatalf("hosts = %+v", hs)
	}
}

func TestIngest_MalformedCountedNeverFatal(t *testing.T) {
	r := newRig(t, "", "lic")
	rep := r.startIngest(t, ingest.Config{})
	bad := []struct{ subject, data string }{
		{wire.HeartbeatSubject("lic"), `{not json`},
		{wire.HeartbeatSubject("lic"), `{"schema":2}`}, // no timestamp
		{wire.HeartbeatSubject("lic"), `{"timestamp":"2026-11-24T00:00:00Z","instances":[{"id":"a","state":"running"},{"id":"a","state":"running"}]}`},
		{wire.HeartbeatSubject("lic"), `{"timestamp":"2026-11-24T00:00:00Z","instances":[{"id":"BAD ID","state":"running"}]}`},
		{wire.StatusSubject("lic", "w"), `{"timestamp":"2026-11-24T00:00:00Z","event":{"state":"exploded"}}`},
		{wire.StatusSubject("lic", "w"), `[]`},
		{"corrosion.lic.host.status", `{"timestamp":"2026-11-24T00:00:00Z","event":{"state":"running"}}`},
	}
	for _, b := range bad {
		if err := r.pub.Publish(b.subject, []byte(b.data)); err != nil {
			t.Fatal(err)
		}
	}
	// A heartbeat with NUL bytes and invalid UTF-8 is stored, cleaned.
	hb := heartbeat(time.Now(), "lic", 1)
	hb.Host.Hostname = "gs\x00-1"
	publishJSON(t, r.pub, wire.HeartbeatSubject("lic"), hb)
	poll.Until(t, 10*time.Second, func() error {
		if got := metric(t, rep.reg, "corrosion_panel_ingest_malformed_total"); got != 7 {
			return fmt.Errorf("malformed = %v, want 7", got)
		}
		h, err := r.st.Host(context.Background(), "lic")
		if err != nil || !h.Online || h.Hostname != "gs-1" {
			return fmt.Errorf("host = %+v, %v", h, err)
		}
		return nil
	})
	if got := metric(t, rep.reg, "corrosion_panel_ingest_malformed_total", "kind", "status"); got != 3 {
		t.Fatalf("malformed status = %v, want 3", got)
	}
}

// Two replicas in the queue group: each event is written once, and a
// redelivered event (an agent re-announcing after a reconnect) too.
func TestIngest_TwoReplicasWriteEachEventOnce(t *testing.T) {
	r := newRig(t, "", "lic")
	a, b := r.startIngest(t, ingest.Config{}), r.startIngest(t, ingest.Config{})
	const n = 300
	t0 := time.Now().Add(-time.Second) // an agent whose clock is in step (store.MaxClockSkew): its stamps identify its events
	for i := range n {
		ev := statusEvent(t0.Add(time.Duration(i)*time.Millisecond), "world1", wire.StateRunning, i)
		publishJSON(t, r.pub, wire.StatusSubject("lic", "world1"), ev)
		if i%3 == 0 {
			publishJSON(t, r.pub, wire.StatusSubject("lic", "world1"), ev) // redelivered
		}
	}
	poll.Until(t, 15*time.Second, func() error {
		got := metric(t, a.reg, "corrosion_panel_ingest_messages_total") + metric(t, b.reg, "corrosion_panel_ingest_messages_total")
		if got != n+n/3 {
			return fmt.Errorf("ingested %v messages, want %d", got, n+n/3)
		}
		return nil
	})
	if ma, mb := metric(t, a.reg, "corrosion_panel_ingest_messages_total"), metric(t, b.reg, "corrosion_panel_ingest_messages_total"); ma == 0 || mb == 0 {
		t.Fatalf("the queue group did not share the work: %v and %v", ma, mb)
	}
	poll.True(t, 10*time.Second, "every event once", func() bool { return timelineLen(t, r.st, "lic", "world1") == n })
	in, err := r.st.Instance(context.Background(), "lic", "world1")
	if err != nil || in.CrashCount != n-1 {
		t.Fatalf("instance = %+v, %v (the newest event's crash count is %d)", in, err, n-1)
	}
}

// Postgres stopped mid-run: ingest holds the newest state of each host and
// every event, retries, and writes them all once it is back.
func TestIngest_PostgresRestartLosesNothing(t *testing.T) {
	cluster := pgtest.NewCluster(t)
	if err := cluster.CreateDatabase(context.Background(), "panel"); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, cluster.URL("panel"), "lic1", "lic2")
	rep := r.startIngest(t, ingest.Config{RetryMin: 50 * time.Millisecond, RetryMax: 500 * time.Millisecond})
	t0 := time.Now()
	publishJSON(t, r.pub, wire.HeartbeatSubject("lic1"), heartbeat(t0, "lic1", 3))
	poll.True(t, 10*time.Second, "first heartbeat written", func() bool {
		h, err := r.st.Host(context.Background(), "lic1")
		return err == nil && h.Seen
	})
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	const n = 50
	for i := range n {
		at := t0.Add(time.Duration(i+1) * time.Millisecond)
		publishJSON(t, r.pub, wire.StatusSubject("lic1", "world0"), statusEvent(at, "world0", wire.StateCrashed, i+1))
		publishJSON(t, r.pub, wire.HeartbeatSubject("lic2"), heartbeat(at, "lic2", 2))
	}
	poll.True(t, 10*time.Second, "a failed flush", func() bool { return metric(t, rep.reg, "corrosion_panel_ingest_flush_errors_total") > 0 })
	if held := metric(t, rep.reg, "corrosion_panel_ingest_pending"); held != n+1 {
		t.Fatalf("held %v rows while Postgres is down, want %d (events, and lic2 coalesced)", held, n+1)
	}
	if err := cluster.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 20*time.Second, "every event after the restart", func() bool { return timelineLen(t, r.st, "lic1", "world0") == n })
	h, err := r.st.Host(context.Background(), "lic2")
	if err != nil || !h.Online || len(h.Counts) != 1 {
		t.Fatalf("lic2 = %+v, %v", h, err)
	}
	if in, _ := r.st.Instance(context.Background(), "lic1", "world0"); in.CrashCount != n {
		t.Fatalf("crash count = %d, want %d", in.CrashCount, n)
	}
}

// An ingester stopped mid-run writes what it holds before Run returns, and
// the replica that keeps running (or the one started next) takes over:
// nothing published is lost.
func TestIngest_RestartMidRunLosesNothing(t *testing.T) {
	r := newRig(t, "", "lic")
	// A long flush interval: what the stopped one holds is written only by
	// its drain.
	slow := ingest.Config{FlushEvery: time.Hour, MaxBatch: 1 << 20}
	a := r.startIngest(t, slow)
	r.startIngest(t, ingest.Config{}) // the replica that keeps running
	// Within store.MaxClockSkew of the panel's clock: events stamped further off
	// are ordered by arrival, and 400 of one state arriving together could share
	// a microsecond, which the timeline's dedup index counts as one.
	t0 := time.Now().Add(-time.Second)
	const n = 400
	publish := func(from, to int) {
		for i := from; i < to; i++ {
			publishJSON(t, r.pub, wire.StatusSubject("lic", "w"), statusEvent(t0.Add(time.Duration(i)*time.Millisecond), "w", wire.StateRunning, i))
		}
		if err := r.pub.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	publish(0, n/2)
	poll.True(t, 10*time.Second, "a holds some", func() bool { return metric(t, a.reg, "corrosion_panel_ingest_messages_total") > 0 })
	if err := a.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	r.startIngest(t, ingest.Config{}) // a's restart
	publish(n/2, n)
	poll.True(t, 15*time.Second, "every event", func() bool { return timelineLen(t, r.st, "lic", "w") == n })
}

// The NATS server restarts: ingest's subscriptions come back with its
// connection, and what agents publish afterwards is written.
func TestIngest_NATSRestartResubscribes(t *testing.T) {
	r := newRig(t, "", "lic")
	r.startIngest(t, ingest.Config{})
	t0 := time.Now().Add(-time.Minute)
	publishJSON(t, r.pub, wire.StatusSubject("lic", "w"), statusEvent(t0, "w", wire.StateStarting, 0))
	poll.True(t, 10*time.Second, "the first event", func() bool { return timelineLen(t, r.st, "lic", "w") == 1 })
	r.nats.Shutdown()
	r.nats.Restart()
	// Publish until one lands: the publisher and ingest reconnect on their
	// own schedules; each try is a distinct event (a later timestamp).
	i := 0
	poll.True(t, 20*time.Second, "an event after the restart", func() bool {
		i++
		_ = r.pub.Publish(wire.StatusSubject("lic", "w"), mustJSON(t, statusEvent(t0.Add(time.Duration(i)*time.Millisecond), "w", wire.StateRunning, 0)))
		return timelineLen(t, r.st, "lic", "w") > 1
	})
}

// The prune loop trims timelines past the retention while ingest runs.
func TestIngest_PruneLoopBoundsTimelines(t *testing.T) {
	r := newRig(t, "", "lic")
	keep := store.Retention{Samples: time.Hour, Events: time.Hour, EventsPerInstance: 5, Chunk: 100}
	r.startIngest(t, ingest.Config{Retention: keep, PruneEvery: 50 * time.Millisecond})
	t0 := time.Now().Add(-2 * time.Hour) // the first 10 are past the age limit
	for i := range 30 {
		publishJSON(t, r.pub, wire.StatusSubject("lic", "w"), statusEvent(t0.Add(time.Duration(i)*10*time.Minute), "w", wire.StateRunning, i))
	}
	poll.True(t, 10*time.Second, "timeline trimmed to 5", func() bool { return timelineLen(t, r.st, "lic", "w") == 5 })
	tl, err := r.st.Timeline(context.Background(), "lic", "w", 10)
	if err != nil || tl[0].CrashCount != 29 {
		t.Fatalf("kept %+v, %v: want the newest", tl, err)
	}
}

// A batch the database refuses (here: a constraint this test adds) costs
// only the refusing license's rows: the rest of the batch is written.
func TestIngest_RefusedRowsCostOnlyTheirLicense(t *testing.T) {
	r := newRig(t, "", "good", "bad")
	if _, err := r.st.Pool().Exec(context.Background(),
		`ALTER TABLE panel_hosts ADD CONSTRAINT test_refuse CHECK (hostname <> 'gs-bad')`); err != nil {
		t.Fatal(err)
	}
	rep := r.startIngest(t, ingest.Config{FlushEvery: 300 * time.Millisecond})
	publishJSON(t, r.pub, wire.HeartbeatSubject("bad"), heartbeat(time.Now(), "bad", 1))
	publishJSON(t, r.pub, wire.HeartbeatSubject("good"), heartbeat(time.Now(), "good", 1))
	poll.True(t, 10*time.Second, "the good host written", func() bool {
		h, err := r.st.Host(context.Background(), "good")
		return err == nil && h.Seen
	})
	poll.True(t, 5*time.Second, "the bad host's row counted as dropped", func() bool {
		return metric(t, rep.reg, "corrosion_panel_ingest_dropped_total", "reason", "refused") == 1
	})
	if h, err := r.st.Host(context.Background(), "bad"); err != nil || h.Seen {
		t.Fatalf("bad = %+v, %v", h, err)
	}
}

// Two replicas writing the same hosts' heartbeats at once: every host is
// written, nothing is refused or dropped (lost races are retried).
func TestIngest_TwoReplicasSameHostsConcurrently(t *testing.T) {
	const hosts = 200
	var licenses []string
	for i := range hosts {
		licenses = append(licenses, fmt.Sprintf("h%03d", i))
	}
	r := newRig(t, "", licenses...)
	fast := ingest.Config{FlushEvery: 20 * time.Millisecond}
	a, b := r.startIngest(t, fast), r.startIngest(t, fast)
	last := time.Now()
	for round := range 15 {
		last = time.Now()
		for _, l := range licenses {
			hb := heartbeat(last, l, 3)
			hb.Instances[round%3].State = wire.StateStopped // instance rows change too
			publishJSON(t, r.pub, wire.HeartbeatSubject(l), hb)
		}
	}
	ctx := context.Background()
	poll.Until(t, 20*time.Second, func() error {
		// Written, whether or not still online: on a loaded machine the
		// writes can outlast the hosts' 15 s online window.
		hs, err := r.st.Hosts(ctx, nilFilter())
		seen := 0
		for _, h := range hs {
			if h.Seen {
				seen++
			}
		}
		if err != nil || seen != hosts {
			return fmt.Errorf("%d hosts written, %v", seen, err)
		}
		in, err := r.st.Instance(ctx, "h199", "world2")
		if err != nil || in.State != wire.StateStopped {
			return fmt.Errorf("h199/world2 = %+v, %v (the last round stopped world2)", in, err)
		}
		return nil
	})
	for _, rep := range []*replica{a, b} {
		if d := metric(t, rep.reg, "corrosion_panel_ingest_dropped_total"); d != 0 {
			t.Fatalf("dropped %v", d)
		}
	}
	t.Logf("retried flushes: %v and %v", metric(t, a.reg, "corrosion_panel_ingest_flush_errors_total"),
		metric(t, b.reg, "corrosion_panel_ingest_flush_errors_total"))
}
