package session

import "sync"

// serial runs functions one at a time per key (a player), in the order
// they were queued, with no goroutine for idle keys: the first function
// queued for a key starts a goroutine that drains that key's queue and
// exits when it is empty. Different keys run concurrently.
type serial struct {
	mu      sync.Mutex
	queues  map[uint64]*[]func() // guarded by mu; keys with work queued or running
	pending int                  // guarded by mu; functions queued, not yet started
	limit   int                  // immutable after init: Do refuses work beyond this many pending
	wg      sync.WaitGroup       // safe for concurrent use; counts the draining goroutines
}

func (x *serial) init(limit int) {
	x.queues = map[uint64]*[]func(){}
	x.limit = limit
}

// Do queues fn for key. It reports false (and drops fn) when more than the
// limit of functions are already waiting: the world is sending faster than
// the node can work, and dropping is better than unbounded memory.
func (x *serial) Do(key uint64, fn func()) bool {
	x.mu.Lock()
	if x.pending >= x.limit {
		x.mu.Unlock()
		return false
	}
	x.pending++
	if q := x.queues[key]; q != nil {
		*q = append(*q, fn)
		x.mu.Unlock()
		return true
	}
	q := &[]func(){fn}
	x.queues[key] = q
	x.wg.Add(1)
	x.mu.Unlock()
	go x.drain(key, q)
	return true
}

func (x *serial) drain(key uint64, q *[]func()) {
	defer x.wg.Done()
	for {
		x.mu.Lock()
		if len(*q) == 0 {
			delete(x.queues, key)
			x.mu.Unlock()
			return
		}
		fn := (*q)[0]
		(*q)[0] = nil
		*q = (*q)[1:]
		x.pending--
		x.mu.Unlock()
		fn()
	}
}

// Wait blocks until every queued function has run.
func (x *serial) Wait() { x.wg.Wait() }
