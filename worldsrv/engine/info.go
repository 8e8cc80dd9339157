package engine

import (
	"runtime"
	"sync"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// maxInfoWorkers bounds the info phase's parallel shares; it uses
// GOMAXPROCS of them up to this.
const maxInfoWorkers = 8

// minInfoShare is the least work (tiles, or players) a share is given:
// below it the goroutine costs more than it saves.
const minInfoShare = 128

func infoWorkers() int { return min(runtime.GOMAXPROCS(0), maxInfoWorkers) }

// phaseInfo sends each player its Position when it moved and its Nearby
// list when that changed (see tileLists). The phase reads the players and
// writes only its own state and each player's, so both of its steps (the
// tiles' lists, then the players' frames) run in parallel shares.
func (e *Engine) phaseInfo(time.Time) {
	e.tiles.build(e.players)
	l := &e.lists
	l.begin(e.players, len(e.tiles.tiles))
	l.share(len(e.tiles.tiles), func(w *listWorker, lo, hi int) { l.build(&e.tiles, w, lo, hi) })
	l.share(len(e.players), func(w *listWorker, lo, hi int) {
		for _, p := range e.players[lo:hi] {
			if p != nil {
				e.inform(w, p)
			}
		}
	})
}

// inform queues p's Position if it moved and its Nearby if that changed.
func (e *Engine) inform(w *listWorker, p *player) {
	if p.pos != p.sentPos {
		p.sentPos = p.pos
		w.pos = proto.Position{X: p.pos.X, Y: p.pos.Y}
		e.send(p.c, &w.pos)
	}
	a, b := e.lists.of(&e.tiles, p.pid)
	if !sameEntries(p.sentA, p.sentB, a, b) {
		w.nearby = nearbyFrame{a: a, b: b}
		e.send(p.c, &w.nearby)
		w.nearby = nearbyFrame{}
	}
	p.sentA, p.sentB = a, b
}

// share runs fn over [0, n) split into contiguous shares, one per worker
// (at least minInfoShare each), the first on the calling goroutine; it
// returns when all are done.
func (l *tileLists) share(n int, fn func(w *listWorker, lo, hi int)) {
	parts := min(len(l.workers), max(n/minInfoShare, 1))
	if parts == 1 {
		fn(&l.workers[0], 0, n)
		return
	}
	var wg sync.WaitGroup
	for i := 1; i < parts; i++ {
		wg.Go(func() { fn(&l.workers[i], i*n/parts, (i+1)*n/parts) })
	}
	fn(&l.workers[0], 0, n/parts)
	wg.Wait()
}
