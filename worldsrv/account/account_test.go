package account

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newPool migrates a fresh database and returns a pool on it.
func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	if _, err := Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func open(t *testing.T, pool *pgxpool.Pool, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLogin_RegistersThenLogsIn(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	s := open(t, pool, Options{Autoregister: true})

	first, err := s.Login(ctx, "Zezima", "hunter2")
	if err != nil {
		t.Fatal(err)
	}
	if !first.Registered || first.Name != "Zezima" || first.CreatedAt.IsZero() || first.LastLoginAt.IsZero() {
		t.Fatalf("first login = %+v", first)
	}
	if want, _ := proto.EncodeName("zezima"); first.User37 != want {
		t.Fatalf("User37 = %d, want %d", first.User37, want)
	}
	var stored string
	if err := pool.QueryRow(ctx, "SELECT password_hash FROM world_accounts WHERE user37 = $1", int64(first.User37)).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(stored, "hunter2") {
		t.Fatalf("stored hash %q", stored)
	}

	second, err := s.Login(ctx, "ZEZIMA", "hunter2") // names are case-insensitive
	if err != nil {
		t.Fatal(err)
	}
	if second.Registered || second.User37 != first.User37 || !second.CreatedAt.Equal(first.CreatedAt) ||
		!second.LastLoginAt.After(first.LastLoginAt) {
		t.Fatalf("second login = %+v after %+v; want the same account, a later last_login_at", second, first)
	}
	if _, err := s.Login(ctx, "zezima", "hunter3"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("wrong password: %v, want ErrBadCredentials", err)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM world_accounts").Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d accounts (err %v), want 1", n, err)
	}
}

func TestLogin_RefusesBadNamesAndPasswords(t *testing.T) {
	ctx := context.Background()
	s := open(t, newPool(t), Options{Autoregister: true})
	tests := []struct {
		name, user, password string
		want                 error
	}{
		{"empty name", "", "pw", ErrBadName},
		{"long name", "abcdefghijklm", "pw", ErrBadName},
		{"leading space", " bob", "pw", ErrBadName},
		{"trailing underscore", "bob_", "pw", ErrBadName},
		{"punctuation", "bob!", "pw", ErrBadName},
		{"non-ASCII", "\u212aat", "pw", ErrBadName}, // the Kelvin sign lower-cases to k outside ASCII
		{"empty password", "bob", "", ErrBadCredentials},
		{"21-byte password", "bob", strings.Repeat("x", 21), ErrBadCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Login(ctx, tt.user, tt.password); !errors.Is(err, tt.want) {
				t.Fatalf("Login(%q) = %v, want %v", tt.user, err, tt.want)
			}
		})
	}
	if _, err := s.Login(ctx, "bob", strings.Repeat("x", 20)); err != nil {
		t.Fatalf("a 20-byte password: %v", err)
	}
}

func TestLogin_AutoregisterOff(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	if _, err := open(t, pool, Options{Autoregister: true}).Login(ctx, "alice", "secret"); err != nil {
		t.Fatal(err)
	}
	s := open(t, pool, Options{})
	if _, err := s.Login(ctx, "mallory", "secret"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("unknown name: %v, want ErrBadCredentials", err)
	}
	if s.Stats().Hashes != 1 {
		t.Fatalf("an unknown name computed %d hashes, want 1 (the decoy, so it costs what a known name does)", s.Stats().Hashes)
	}
	if _, err := s.Login(ctx, "alice", "secret"); err != nil {
		t.Fatalf("known name: %v", err)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM world_accounts").Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d accounts (err %v), want only alice", n, err)
	}
}

// Concurrent first logins of one name create one account: with the same
// password every one succeeds; with different ones exactly the winner's
// password works and the rest get ErrBadCredentials.
func TestLogin_ConcurrentFirstLogins(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	s := open(t, pool, Options{Autoregister: true})
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	registered := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			pw := "same"
			if i%2 == 1 {
				pw = "other"
			}
			a, err := s.Login(ctx, "twin", pw)
			errs[i], registered[i] = err, a.Registered
		})
	}
	wg.Wait()
	var created, okSame, okOther, bad int
	for i, err := range errs {
		switch {
		case err == nil && i%2 == 0:
			okSame++
		case err == nil:
			okOther++
		case errors.Is(err, ErrBadCredentials):
			bad++
		default:
			t.Fatalf("login %d: %v", i, err)
		}
		if registered[i] {
			created++
		}
	}
	if created != 1 {
		t.Fatalf("%d logins report creating the account, want 1", created)
	}
	if (okSame != n/2 || okOther != 0 || bad != n/2) && (okOther != n/2 || okSame != 0 || bad != n/2) {
		t.Fatalf("same-password logins ok %d, other-password ok %d, refused %d: want one password's half to succeed", okSame, okOther, bad)
	}
	var rows int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM world_accounts").Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("%d accounts (err %v), want 1", rows, err)
	}
}

// parallelLogins runs n logins of distinct new names at once and returns
// their errors.
func parallelLogins(s *Store, n int) []error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.Login(context.Background(), "storm"+string(rune('a'+i%26))+string(rune('a'+i/26)), "pw")
		})
	}
	wg.Wait()
	return errs
}

// With one hashing slot, however many logins arrive at once, never more
// than one argon2id hash (19 MiB) is in flight.
func TestLogin_HashSlotsBoundConcurrentHashes(t *testing.T) {
	pool := newPool(t)
	s := open(t, pool, Options{Autoregister: true, MaxConcurrentHashes: 1, HashSlotWait: time.Minute})
	const n = 24
	for i, err := range parallelLogins(s, n) {
		if err != nil {
			t.Fatalf("login %d: %v", i, err)
		}
	}
	if st := s.Stats(); st.PeakHashes != 1 || st.Hashes != n || st.HashesInFlight != 0 {
		t.Fatalf("stats %+v: want peak 1, %d hashes, none in flight", st, n)
	}
	// The counter does see concurrency when the bound allows it.
	wide := open(t, pool, Options{Autoregister: true, MaxConcurrentHashes: 8, HashSlotWait: time.Minute})
	parallelLogins(wide, n)
	if st := wide.Stats(); st.PeakHashes < 2 || st.PeakHashes > 8 {
		t.Fatalf("with 8 slots the peak was %d, want 2..8", st.PeakHashes)
	}
}

// A login that waits past HashSlotWait for a slot fails with ErrBusy.
func TestLogin_BusyWhenNoSlotFreesUp(t *testing.T) {
	s := open(t, newPool(t), Options{Autoregister: true, MaxConcurrentHashes: 1, HashSlotWait: time.Millisecond})
	var busy int
	for i, err := range parallelLogins(s, 16) {
		switch {
		case errors.Is(err, ErrBusy):
			busy++
		case err != nil:
			t.Fatalf("login %d: %v", i, err)
		}
	}
	if busy == 0 || s.Stats().Busy != int64(busy) {
		t.Fatalf("%d logins got ErrBusy, stats %+v; want some, counted", busy, s.Stats())
	}
}

func TestOpen_RefusesUnmigratedDatabase(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := Open(ctx, pool, Options{}); !errors.Is(err, ErrNotMigrated) || !strings.Contains(err.Error(), "0001_accounts.sql") {
		t.Fatalf("Open = %v, want ErrNotMigrated naming 0001_accounts.sql", err)
	}
}

// BenchmarkLogin_Parallel is a login storm on one existing account: the
// logins per second the hashing slots (GOMAXPROCS) allow, database
// round trips included.
func BenchmarkLogin_Parallel(b *testing.B) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(b)
	if _, err := Migrate(ctx, dsn); err != nil {
		b.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	s, err := Open(ctx, pool, Options{Autoregister: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Login(ctx, "storm", "pw"); err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(8) // more logins waiting than slots
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Login(ctx, "storm", "pw"); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "logins/s")
	b.ReportMetric(float64(s.Stats().PeakHashes), "peak-hashes")
}
