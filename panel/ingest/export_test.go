package ingest

import (
	"time"

	"github.com/corrosion/corrosion/panel/store"
)

// SetOnCommit makes in call fn with every committed batch (tests and the
// bench measure publish-to-commit lag with it). Call it before Run.
func (in *Ingester) SetOnCommit(fn func(b *store.Batch, committed time.Time)) { in.onCommit = fn }
