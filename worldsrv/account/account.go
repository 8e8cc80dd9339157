// Package account keeps the world servers' player accounts in PostgreSQL
// (table world_accounts, schema through internal/migrate): names as name37
// values, passwords as argon2id PHC strings, with a bound on the hashes in
// flight so that a login storm cannot exhaust memory. Passwords are never
// logged or returned.
package account

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corrosion/corrosion/internal/argon2id"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// Errors Login returns; callers map them to login codes (3 for
// ErrBadName and ErrBadCredentials).
var (
	ErrBadName        = errors.New("invalid player name")
	ErrBadCredentials = errors.New("invalid name or password")
	ErrBusy           = errors.New("too many logins in progress: no password hashing slot free")
	ErrNotMigrated    = errors.New("world database is not migrated: run the world's migrate")
)

// Options configure a Store.
type Options struct {
	// Autoregister creates the account on the first login of an unknown
	// name, with the password given.
	Autoregister bool
	// MaxConcurrentHashes bounds the argon2id hashes in flight (each holds
	// Params.Memory of RAM). Default: GOMAXPROCS.
	MaxConcurrentHashes int
	// HashSlotWait is how long a login waits for a slot before ErrBusy.
	// Default 0: no time bound, a login waits its turn until its ctx ends,
	// and the caller bounds how many wait (the world's engine: its account
	// checks in flight, each until its client hangs up). A login waiting
	// for a slot is queued, not failed: in a reconnect storm of a world
	// restart, the hashes are the work and every login gets its turn.
	HashSlotWait time.Duration
	// Params are the argon2id costs of new hashes. Default: DefaultParams.
	Params Params
}

// Account is one player's account, without its password hash.
type Account struct {
	User37      uint64 // the name's name37 value (proto.EncodeName)
	Name        string // the name as proto.DecodeName shows it: "Zezima", "Iron Man"
	CreatedAt   time.Time
	LastLoginAt time.Time // this login's time
	Registered  bool      // this login created the account
}

// Store is the accounts table. It is safe for concurrent use.
type Store struct {
	pool  *pgxpool.Pool     // immutable after Open; owned by the caller
	opts  Options           // immutable after Open
	slots *argon2id.Limiter // immutable after Open; its counters are atomic
	decoy string            // immutable after Open: a PHC string hashed against for unknown names
}

// Open returns a Store on pool, which the caller keeps and closes. It fails
// with ErrNotMigrated when the database lacks migrations (Migrate applies
// them).
func Open(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Store, error) {
	if opts.MaxConcurrentHashes <= 0 {
		opts.MaxConcurrentHashes = runtime.GOMAXPROCS(0)
	}
	if opts.Params == (Params{}) {
		opts.Params = DefaultParams
	}
	pending, err := Schema.Pending(ctx, pool)
	if err != nil {
		return nil, fmt.Errorf("check world schema: %w", err)
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("%d migrations pending, first %s: %w", len(pending), pending[0].File, ErrNotMigrated)
	}
	s := &Store{pool: pool, opts: opts, slots: argon2id.NewLimiter(opts.MaxConcurrentHashes, opts.HashSlotWait)}
	if s.decoy, err = argon2id.Hash("decoy", opts.Params); err != nil {
		return nil, err
	}
	return s, nil
}

// Login checks name and password and returns the account, creating it
// first when the name is unknown and Autoregister is on. It fails with
// ErrBadName for a name that is not a valid player name, ErrBadCredentials
// for a wrong password, an unknown name without Autoregister, or a
// password outside 1–20 bytes, ErrBusy when every hashing slot stayed
// taken for HashSlotWait (when set), and ctx's error when ctx ended while
// it waited. A successful login records its time in last_login_at.
//
// Two concurrent first logins of one name create one account: the other
// login then checks its password against the winner's.
func (s *Store) Login(ctx context.Context, name, password string) (Account, error) {
	user37, err := proto.EncodeName(name)
	if err != nil {
		return Account{}, ErrBadName
	}
	if len(password) < MinPasswordLen || len(password) > MaxPasswordLen {
		return Account{}, fmt.Errorf("password must be %d–%d bytes: %w", MinPasswordLen, MaxPasswordLen, ErrBadCredentials)
	}
	stored, err := s.passwordHash(ctx, user37)
	if errors.Is(err, pgx.ErrNoRows) {
		if !s.opts.Autoregister {
			// Hash anyway so an unknown name costs what a known one does.
			_, _ = s.verify(ctx, password, s.decoy)
			return Account{}, ErrBadCredentials
		}
		return s.register(ctx, user37, proto.DecodeName(user37), password)
	}
	if err != nil {
		return Account{}, err
	}
	return s.check(ctx, user37, password, stored)
}

// check verifies password against the stored hash and records the login.
func (s *Store) check(ctx context.Context, user37 uint64, password, stored string) (Account, error) {
	match, err := s.verify(ctx, password, stored)
	if err != nil {
		return Account{}, err
	}
	if !match {
		return Account{}, ErrBadCredentials
	}
	a := Account{User37: user37}
	err = s.pool.QueryRow(ctx, `UPDATE world_accounts SET last_login_at = now() WHERE user37 = $1
		RETURNING name, created_at, last_login_at`, int64(user37)).Scan(&a.Name, &a.CreatedAt, &a.LastLoginAt)
	if err != nil {
		return Account{}, fmt.Errorf("record login of %d: %w", user37, err)
	}
	return a, nil
}

// register creates the account; when a concurrent login created it first,
// the password is checked against that one instead.
func (s *Store) register(ctx context.Context, user37 uint64, name, password string) (Account, error) {
	var encoded string
	var herr error
	if err := s.do(ctx, func() { encoded, herr = argon2id.Hash(password, s.opts.Params) }); err != nil {
		return Account{}, err
	}
	if herr != nil {
		return Account{}, herr
	}
	a := Account{User37: user37, Name: name, Registered: true}
	err := s.pool.QueryRow(ctx, `INSERT INTO world_accounts (user37, name, password_hash, last_login_at)
		VALUES ($1, $2, $3, now()) ON CONFLICT (user37) DO NOTHING
		RETURNING created_at, last_login_at`, int64(user37), name, encoded).Scan(&a.CreatedAt, &a.LastLoginAt)
	if errors.Is(err, pgx.ErrNoRows) { // lost the race to a concurrent first login
		stored, err := s.passwordHash(ctx, user37)
		if err != nil {
			return Account{}, err
		}
		return s.check(ctx, user37, password, stored)
	}
	if err != nil {
		return Account{}, fmt.Errorf("create account %d: %w", user37, err)
	}
	return a, nil
}

// passwordHash reads the stored PHC string; pgx.ErrNoRows (unwrapped) when
// there is no such account.
func (s *Store) passwordHash(ctx context.Context, user37 uint64) (string, error) {
	var h string
	err := s.pool.QueryRow(ctx, "SELECT password_hash FROM world_accounts WHERE user37 = $1", int64(user37)).Scan(&h)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("look up account %d: %w", user37, err)
	}
	return h, err
}

// verify checks password against encoded inside a hashing slot.
func (s *Store) verify(ctx context.Context, password, encoded string) (bool, error) {
	var match bool
	var verr error
	if err := s.do(ctx, func() { match, verr = argon2id.Verify(password, encoded) }); err != nil {
		return false, err
	}
	if verr != nil {
		return false, fmt.Errorf("stored password hash: %w", verr)
	}
	return match, nil
}
