package paneltest

import (
	"context"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/ingest"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/store"
)

// StartIngest runs an ingester for this server life (flushing every 50 ms,
// for quick tests) and returns once it has subscribed: a heartbeat a test
// publishes after Start is never missed. Each of also is called after
// every commit too (as serve hands commits to the probe after start).
func StartIngest(t testing.TB, d Deps, also ...func(b *store.Batch, committed time.Time)) *ingest.Ingester {
	t.Helper()
	ing, err := ingest.New(ingest.Config{FlushEvery: 50 * time.Millisecond}, d.Store, d.NC, d.Logger, nil)
	if err != nil {
		t.Fatal(err)
	}
	publish := livestate.PublishCommitted(d.NC, d.Logger) // as corrosion-panel serve wires it
	ing.OnCommit(func(b *store.Batch, committed time.Time) {
		publish(b, committed)
		for _, fn := range also {
			fn(b, committed)
		}
	})
	d.Go(func(ctx context.Context) { _ = ing.Run(ctx) })
	select {
	case <-ing.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("paneltest: ingest did not subscribe within 10s")
	}
	return ing
}
