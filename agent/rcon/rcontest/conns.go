package rcontest

import "sync"

// connSet is the open client connections of a test server: it lets the
// server drop them all, and shut lets it stop, end them and wait for
// their handlers.
type connSet[C comparable] struct {
	closeConn func(C)        // immutable after newConnSet
	wg        sync.WaitGroup // one per tracked connection, until its handler calls done
	shutOnce  sync.Once

	mu     sync.Mutex
	conns  map[C]struct{} // guarded by mu
	closed bool           // guarded by mu; no connection is tracked once set
}

func newConnSet[C comparable](closeConn func(C)) *connSet[C] {
	return &connSet[C]{closeConn: closeConn, conns: map[C]struct{}{}}
}

// add tracks c for its handler, which must call done; after shut it
// reports false and c is the caller's to close.
func (s *connSet[C]) add(c C) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

// done forgets c and closes it; its handler calls it once, on its way out.
func (s *connSet[C]) done(c C) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.closeConn(c)
	s.wg.Done()
}

// count is the number of connections open.
func (s *connSet[C]) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// snapshot returns the connections open now.
func (s *connSet[C]) snapshot() []C {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]C, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	return out
}

// dropAll closes every open connection; their handlers see it and end.
func (s *connSet[C]) dropAll() {
	for _, c := range s.snapshot() {
		s.closeConn(c)
	}
}

// shut refuses new connections, calls stopListening, closes every
// connection and waits for their handlers. Idempotent.
func (s *connSet[C]) shut(stopListening func()) {
	s.shutOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		stopListening()
		s.dropAll()
		s.wg.Wait()
	})
}
