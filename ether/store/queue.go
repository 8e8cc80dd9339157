package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/corrosion/corrosion/ether/privacy"
)

type opKind uint8

const (
	opFriendAdd opKind = iota + 1
	opFriendDel
	opIgnoreAdd
	opIgnoreDel
	opSetMode
	opSave
)

func (k opKind) String() string {
	return [...]string{"", "friend add", "friend delete", "ignore add", "ignore delete", "set mode", "save"}[k]
}

// op is one queued write.
type op struct {
	seq          uint64          // set by push under queue.mu; immutable once queued
	kind         opKind          // immutable after creation
	owner, other uint64          // immutable after creation
	limit        int             // immutable after creation
	mode         privacy.Mode    // immutable after creation
	data         []byte          // guarded by queue.mu while in queue.saves; immutable after head
	done         []func(ok bool) // guarded by queue.mu; saves: see Store.Save
}

// finish reports ok to o's waiters, once.
func (q *queue) finish(o *op, ok bool) {
	q.mu.Lock()
	fs := o.done
	o.done = nil
	q.mu.Unlock()
	for _, f := range fs {
		f(ok)
	}
}

// queue is the ordered write queue. Ops are stored strictly in the order
// they were queued; a save not yet in flight is replaced by a newer save of
// the same player (saves touch nothing else, so order is kept).
type queue struct {
	mu       sync.Mutex
	max      int            // immutable after init
	ops      []*op          // guarded by mu; FIFO, ops[0] is next (or in flight)
	saves    map[uint64]*op // guarded by mu; queued saves not yet in flight
	seq      uint64         // guarded by mu; last sequence handed out
	stored   uint64         // guarded by mu; every op up to this seq is stored or dropped
	changed  chan struct{}  // guarded by mu; closed and replaced on progress or outage
	notify   chan struct{}  // immutable after init; wakes the writer; capacity 1
	dropped  uint64         // guarded by mu; ops refused because the queue was full
	lastWarn time.Time      // guarded by mu
}

// dropWarnEvery spaces the "queue full" warnings.
const dropWarnEvery = 10 * time.Second

func (q *queue) init(max int) {
	q.max = max
	q.saves = map[uint64]*op{}
	q.changed = make(chan struct{})
	q.notify = make(chan struct{}, 1)
}

func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.ops)
}

// push queues o; it reports false when the queue is full (o is dropped).
func (q *queue) push(o *op) bool {
	q.mu.Lock()
	if o.kind == opSave {
		if prev := q.saves[o.owner]; prev != nil {
			prev.data = o.data
			prev.done = append(prev.done, o.done...)
			q.mu.Unlock()
			return true
		}
	}
	if len(q.ops) >= q.max {
		q.dropped++
		q.mu.Unlock()
		return false
	}
	q.seq++
	o.seq = q.seq
	q.ops = append(q.ops, o)
	if o.kind == opSave {
		q.saves[o.owner] = o
	}
	q.mu.Unlock()
	q.wake()
	return true
}

// wake nudges the writer and every waiter.
func (q *queue) wake() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
	q.mu.Lock()
	close(q.changed)
	q.changed = make(chan struct{})
	q.mu.Unlock()
}

// head returns the next op (leaving it queued) and takes a save out of
// the coalescing map, since its data is now being written.
func (q *queue) head() *op {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.ops) == 0 {
		return nil
	}
	o := q.ops[0]
	if o.kind == opSave && q.saves[o.owner] == o {
		delete(q.saves, o.owner)
	}
	return o
}

// pop removes the head after it was stored (or dropped as unstorable).
func (q *queue) pop(o *op) {
	q.mu.Lock()
	if len(q.ops) > 0 && q.ops[0] == o {
		q.ops[0] = nil
		q.ops = q.ops[1:]
		if len(q.ops) == 0 {
			q.ops = nil // let the backing array go after a long outage
		}
	}
	q.stored = o.seq
	close(q.changed)
	q.changed = make(chan struct{})
	q.mu.Unlock()
}

// failWaiting tells every queued op's waiters that it is not stored yet
// (the database is down); the ops stay queued.
func (q *queue) failWaiting() {
	var fs []func(bool)
	q.mu.Lock()
	for _, o := range q.ops {
		fs = append(fs, o.done...)
		o.done = nil
	}
	q.mu.Unlock()
	for _, f := range fs {
		f(false)
	}
}

// dropWarning reports whether a "queue full" warning is due at now (at
// most one every dropWarnEvery), and the ops dropped so far.
func (q *queue) dropWarning(now time.Time) (warn bool, dropped uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if now.Sub(q.lastWarn) > dropWarnEvery {
		q.lastWarn = now
		warn = true
	}
	return warn, q.dropped
}

func (q *queue) pendingSave(user uint64) ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := len(q.ops) - 1; i >= 0; i-- {
		if o := q.ops[i]; o.kind == opSave && o.owner == user {
			return o.data, true
		}
	}
	return nil, false
}

// listsSeq is the sequence of the last queued op that changes user's
// lists (friends, ignores, private mode: every op user owns but a save),
// 0 when none is queued. Ops are stored in order, so once it is stored
// user's lists are as queued.
func (q *queue) listsSeq(user uint64) uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := len(q.ops) - 1; i >= 0; i-- {
		if o := q.ops[i]; o.owner == user && o.kind != opSave {
			return o.seq
		}
	}
	return 0
}

// waitStored waits until every op up to target is stored. It fails at
// once while up() reports the database down.
func (q *queue) waitStored(ctx context.Context, target uint64, up func() bool) error {
	for {
		q.mu.Lock()
		stored, ch := q.stored, q.changed
		q.mu.Unlock()
		if stored >= target {
			return nil
		}
		if !up() {
			return fmt.Errorf("wait for queued writes: %w", ErrUnavailable)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("wait for queued writes: %w", ctx.Err())
		}
	}
}

// AddFriend queues adding friend to owner's list unless the list already
// holds limit friends (checked again in SQL, for sessions that could not
// load their list).
func (s *Store) AddFriend(owner, friend uint64, limit int) {
	s.enqueue(&op{kind: opFriendAdd, owner: owner, other: friend, limit: limit})
}

// DelFriend queues removing friend from owner's list.
func (s *Store) DelFriend(owner, friend uint64) {
	s.enqueue(&op{kind: opFriendDel, owner: owner, other: friend})
}

// AddIgnore queues adding ignore to owner's ignore list, within limit.
func (s *Store) AddIgnore(owner, ignore uint64, limit int) {
	s.enqueue(&op{kind: opIgnoreAdd, owner: owner, other: ignore, limit: limit})
}

// DelIgnore queues removing ignore from owner's ignore list.
func (s *Store) DelIgnore(owner, ignore uint64) {
	s.enqueue(&op{kind: opIgnoreDel, owner: owner, other: ignore})
}

// SetMode queues storing a player's private chat mode.
func (s *Store) SetMode(user uint64, mode privacy.Mode) {
	s.enqueue(&op{kind: opSetMode, owner: user, mode: mode})
}

// Save queues storing a player's save blob (data is kept, not copied).
// done is called once: true when the blob is in the database, false as
// soon as the database is known to be down; such a save stays queued and
// is stored on recovery (LoadSave returns it meanwhile).
func (s *Store) Save(user uint64, data []byte, done func(ok bool)) {
	o := &op{kind: opSave, owner: user, data: data}
	if done != nil {
		o.done = []func(bool){done}
	}
	s.enqueue(o)
}

func (s *Store) enqueue(o *op) {
	if s.q.push(o) {
		if !s.up.Load() {
			s.q.failWaiting()
		}
		return
	}
	s.q.finish(o, false)
	if warn, dropped := s.q.dropWarning(time.Now()); warn {
		s.log.Error("write queue full; dropping newest writes", "max", s.cfg.MaxQueued, "dropped_total", dropped)
	}
}
