package rcon

import (
	"fmt"
	"sync"
)

// pooled is what the Source and WebRCON clients share about their one
// reusable connection: a closed client hands out no connection and keeps
// none, a connection dialled after Close is shut at once, and a connection
// that failed is forgotten only while it is still the pooled one (so that
// the next command dials afresh, and a newer connection is never lost).
type pooled[C comparable] struct {
	shut func(C) // immutable; closes a connection (idempotent)

	mu     sync.Mutex
	conn   C    // guarded by mu; the zero C when there is none
	closed bool // guarded by mu
}

// errClosed is what every call on a closed client returns.
func errClosed() error { return fmt.Errorf("rcon exec: %w", ErrClosed) }

// get returns the pooled connection, the zero C when there is none.
func (p *pooled[C]) get() (C, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		var none C
		return none, errClosed()
	}
	return p.conn, nil
}

// put pools conn, just dialled; after Close it shuts conn instead.
func (p *pooled[C]) put(conn C) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		p.shut(conn)
		return errClosed()
	}
	p.conn = conn
	return nil
}

// drop shuts conn and, if it is still the pooled connection, forgets it.
func (p *pooled[C]) drop(conn C) {
	p.mu.Lock()
	if p.conn == conn {
		var none C
		p.conn = none
	}
	p.mu.Unlock()
	p.shut(conn)
}

func (p *pooled[C]) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// close marks the client closed and returns the connection it held (the
// zero C when none), for the caller to shut.
func (p *pooled[C]) close() C {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	conn := p.conn
	var none C
	p.conn = none
	return conn
}
