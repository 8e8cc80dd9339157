// Package store persists ether's social data in PostgreSQL (friends,
// ignores, private chat modes, player saves) with embedded versioned
// migrations, and queues writes in order so that none is lost while the
// database is unreachable.
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corrosion/corrosion/ether/privacy"
	"github.com/corrosion/corrosion/internal/ctxtime"
	"github.com/corrosion/corrosion/internal/flagval"
)

// Sentinel errors.
var (
	// ErrNotMigrated: the database lacks the schema this binary needs.
	ErrNotMigrated = errors.New("database is not migrated: run `ether migrate`")
	// ErrUnavailable: the database is unreachable right now.
	ErrUnavailable = errors.New("database unavailable")
)

// Config configures a Store.
type Config struct {
	DSN          string        // postgres:// URL or key=value string
	MaxConns     int32         // pool size; default 8
	PingInterval time.Duration // liveness probe period; default 1s
	OpTimeout    time.Duration // per statement; default 3s
	MaxQueued    int           // write queue bound; default 1,000,000 (newest dropped beyond)
}

func (c *Config) setDefaults() {
	c.MaxConns = flagval.Default(c.MaxConns, 8)
	c.PingInterval = flagval.Default(c.PingInterval, time.Second)
	c.OpTimeout = flagval.Default(c.OpTimeout, 3*time.Second)
	c.MaxQueued = flagval.Default(c.MaxQueued, 1_000_000)
}

// Lists is what a session loads for a player.
type Lists struct {
	Friends []uint64 // in the order they were added
	Ignores []uint64
	Mode    privacy.Mode // private chat mode; On when never set
}

// Store is the database of one ether node. Reads go straight to the pool;
// writes go through an ordered queue drained by Run, retried while the
// database is down. Teardown: cancel Run's context (it flushes what it
// can within OpTimeout), then Close.
type Store struct {
	cfg  Config        // immutable after New
	log  *slog.Logger  // immutable after New
	pool *pgxpool.Pool // immutable after New; safe for concurrent use

	q queue // guarded by its own mu; the ordered write queue

	up        atomic.Bool   // atomic; last contact with the database succeeded
	rttNanos  atomic.Int64  // atomic; last ping round trip
	recovered chan struct{} // immutable after New; capacity 1, sent to by maybeRecovered under mu
	loads     chan *loadReq // immutable after New; to the loaders
	quit      chan struct{} // immutable after New; closed by Close (once): loaders exit
	closeOnce sync.Once     // safe for concurrent use
	mu        sync.Mutex    // taken before q's mu (markDown, maybeRecovered), never after
	outage    bool          // guarded by mu: went down and has not yet announced recovery
}

// New opens a pool on cfg.DSN and checks that the schema is current. It
// fails with ErrNotMigrated (wrapped, naming the database) when it is not,
// and with a connection error when the database cannot be reached.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Store, error) {
	cfg.setDefaults()
	pcfg, err := pgxpool.ParseConfig(cfg.DSN)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	pcfg.MaxConns = cfg.MaxConns
	if pcfg.ConnConfig.ConnectTimeout == 0 || pcfg.ConnConfig.ConnectTimeout > cfg.OpTimeout {
		pcfg.ConnConfig.ConnectTimeout = cfg.OpTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	s := &Store{cfg: cfg, log: log, pool: pool, recovered: make(chan struct{}, 1),
		loads: make(chan *loadReq), quit: make(chan struct{})}
	s.q.init(cfg.MaxQueued)
	if err := s.checkSchema(ctx, pcfg.ConnConfig.Database); err != nil {
		pool.Close()
		return nil, err
	}
	s.up.Store(true)
	for i := 0; i < max(1, int(cfg.MaxConns)/2); i++ {
		go s.loader()
	}
	return s, nil
}

func (s *Store) checkSchema(ctx context.Context, db string) error {
	cctx, cancel := context.WithTimeout(ctx, s.cfg.OpTimeout)
	defer cancel()
	v, err := schemaVersion(cctx, s.pool)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "3D000" { // invalid_catalog_name
		return fmt.Errorf("database %s does not exist: %w", db, ErrNotMigrated)
	}
	if err != nil {
		return fmt.Errorf("check schema of database %s: %w", db, err)
	}
	if latest := LatestVersion(); v < latest {
		return fmt.Errorf("database %s is at schema version %d of %d: %w", db, v, latest, ErrNotMigrated)
	}
	return nil
}

// Close stops the loaders and releases the pool. Call it after Run has
// returned.
func (s *Store) Close() {
	s.closeOnce.Do(func() { close(s.quit) })
	s.pool.Close()
}

// Up reports whether the last contact with the database succeeded.
func (s *Store) Up() bool { return s.up.Load() }

// RTT is the round-trip time of the last successful ping.
func (s *Store) RTT() time.Duration { return time.Duration(s.rttNanos.Load()) }

// Pending is the number of queued writes not yet in the database.
func (s *Store) Pending() int { return s.q.len() }

// Recovered delivers a value after each outage, once the database is
// reachable again and every write queued during the outage is stored.
func (s *Store) Recovered() <-chan struct{} { return s.recovered }

// Run drains the write queue and probes the database until ctx ends; then
// it tries to flush what is left for up to OpTimeout.
func (s *Store) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctxtime.Every(ctx, s.cfg.PingInterval, s.ping)
	}()
	s.writeLoop(ctx)
	wg.Wait()
	s.flush()
	return nil
}

// ping probes the database once and records the outcome and round trip
// (not when ctx ended during the ping).
func (s *Store) ping(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, s.cfg.OpTimeout)
	start := time.Now()
	err := s.pool.Ping(cctx)
	cancel()
	if ctx.Err() != nil {
		return
	}
	s.noteResult(err)
	if err == nil {
		s.rttNanos.Store(int64(time.Since(start)))
	}
}

// noteResult records the outcome of a database round trip: connection
// failures mark the database down; a success after an outage announces
// recovery once the queue is empty.
func (s *Store) noteResult(err error) {
	if err != nil {
		if retryable(err) {
			s.markDown(err)
		}
		return
	}
	s.up.Store(true)
	s.maybeRecovered()
}

func (s *Store) markDown(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.outage {
		s.log.Warn("database unreachable; serving from memory and queueing writes", "err", err)
	}
	s.outage = true
	s.up.Store(false)
	s.q.wake()
	go s.q.failWaiting()
}

func (s *Store) maybeRecovered() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.outage || s.q.len() > 0 {
		return
	}
	s.outage = false
	s.log.Info("database reachable again; queued writes stored")
	select {
	case s.recovered <- struct{}{}:
	default:
	}
}

// Load reads a player's friends, ignores and private mode, after every
// change of them queued before the call has been stored (so a reload never
// loses a queued change). Other players' writes are not waited for: under
// a login rush the queue holds thousands, and a login waiting for all of
// them outlasted the world's pending limit. Concurrent loads are batched
// into one round trip. It fails with ErrUnavailable (wrapped) while the
// database is down.
func (s *Store) Load(ctx context.Context, user uint64) (Lists, error) {
	if err := s.q.waitStored(ctx, s.q.listsSeq(user), s.up.Load); err != nil {
		return Lists{}, err
	}
	req := &loadReq{user: user, ctx: ctx, done: make(chan loadRes, 1)}
	select {
	case s.loads <- req:
	case <-ctx.Done():
		return Lists{}, fmt.Errorf("load lists of %d: %w", user, ctx.Err())
	}
	var res loadRes
	select {
	case res = <-req.done:
	case <-ctx.Done():
		return Lists{}, fmt.Errorf("load lists of %d: %w", user, ctx.Err())
	}
	if res.err != nil {
		if retryable(res.err) {
			return Lists{}, fmt.Errorf("load lists of %d: %w: %w", user, ErrUnavailable, res.err)
		}
		return Lists{}, fmt.Errorf("load lists of %d: %w", user, res.err)
	}
	return res.lists, nil
}

// LoadSave returns a player's save blob, or an empty one when there is
// none. A save still queued (the database being down) is returned from
// memory, so a player never reads an older save than the one they wrote.
func (s *Store) LoadSave(ctx context.Context, user uint64) ([]byte, error) {
	if data, ok := s.q.pendingSave(user); ok {
		return data, nil
	}
	var data []byte
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, s.cfg.OpTimeout)
		err = s.pool.QueryRow(cctx, "SELECT save_data FROM player_saves WHERE user_hash = $1", int64(user)).Scan(&data)
		cancel()
		if err == nil || errors.Is(err, pgx.ErrNoRows) || !retryable(err) || ctx.Err() != nil {
			break
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		s.noteResult(nil)
		return []byte{}, nil
	}
	s.noteResult(err)
	if err != nil {
		if retryable(err) {
			return nil, fmt.Errorf("load save of %d: %w: %w", user, ErrUnavailable, err)
		}
		return nil, fmt.Errorf("load save of %d: %w", user, err)
	}
	return data, nil
}

// retryable reports whether err means "the database could not be
// reached or gave up on us" (retry later) rather than "this statement is
// wrong" (retrying cannot help).
func retryable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if len(pgErr.Code) < 2 {
			return false
		}
		switch pgErr.Code[:2] {
		case "08", "53", "57", "58", "40":
			return true
		}
		return false
	}
	return true // network errors, timeouts, closed connections
}
