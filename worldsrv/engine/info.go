package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// maxInfoWorkers bounds the info phase's parallel shares.
const maxInfoWorkers = 8

// infoChunk is how much work (tiles, or players) a worker takes at a
// time: small enough that a worker the OS has not run yet, or has
// preempted, holds up little of it, large enough that taking it costs
// nothing.
const infoChunk = 64

// infoWorkers is how many workers share the info phase: the cores
// (GOMAXPROCS), at most maxInfoWorkers. The tick has the machine nearly
// to itself: the network writers are released after it, and they and
// the clients are done long before the next one. On two cores, with
// 2,000 walking bots, a second worker halves the phase's wall time at
// about the same CPU time (in process, BenchmarkInfo against
// BenchmarkInfoOneWorker: info p50 2.1 against 3.8-5.2 ms, 4.2-5.4 ms
// CPU a tick against 4.3-5.1; in worldsrv/bench's real run, whole tick
// p50/p99 4.7/7.7 ms against 7.0/10.5). On a machine kept busy by other
// work it gains less, and costs little: the caller takes the chunks its
// helper has not started.
func infoWorkers() int { return min(max(runtime.GOMAXPROCS(0), 1), maxInfoWorkers) }

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
	if !e.lists.unchanged(p.sentA, p.sentB, a, b) {
		w.nearby = nearbyFrame{a: a, b: b, entries: e.lists.entries}
		e.send(p.c, &w.nearby)
		w.nearby = nearbyFrame{}
	}
	p.sentA, p.sentB = a, b
}

// share runs fn over [0, n) in chunks of infoChunk, taken in turn by the
// calling goroutine and up to len(l.workers)-1 others, each with its own
// worker; it returns when all are done. The caller works from the start:
// a helper the machine is too busy to run finds the chunks taken.
func (l *tileLists) share(n int, fn func(w *listWorker, lo, hi int)) {
	chunks := (n + infoChunk - 1) / infoChunk
	helpers := min(len(l.workers), chunks) - 1
	if helpers <= 0 {
		fn(&l.workers[0], 0, n)
		return
	}
	var next atomic.Int32
	run := func(w *listWorker) {
		for c := int(next.Add(1)) - 1; c < chunks; c = int(next.Add(1)) - 1 {
			fn(w, c*infoChunk, min((c+1)*infoChunk, n))
		}
	}
	var wg sync.WaitGroup
	for i := 1; i <= helpers; i++ {
		wg.Go(func() { run(&l.workers[i]) })
	}
	run(&l.workers[0])
	wg.Wait()
}
