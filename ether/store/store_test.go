package store

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/ether/privacy"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// startStore migrates dsn and runs a Store on it until the test ends.
func startStore(t *testing.T, dsn string, cfg Config) *Store {
	t.Helper()
	ctx := context.Background()
	if _, err := Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	cfg.DSN = dsn
	s, err := New(ctx, cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	return s
}

func TestMigrate_CreatesDatabaseAndIsIdempotent(t *testing.T) {
	ctx := context.Background()
	base, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	base.Path = "/ether_fresh_" + time.Now().Format("150405000")
	dsn := base.String()

	if _, err := New(ctx, Config{DSN: dsn}, testLogger(t)); err == nil {
		t.Fatal("New on a missing database succeeded")
	}
	applied, err := Migrate(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if want := LatestVersion(); len(applied) != want || want < 4 {
		t.Fatalf("applied %v, want versions 1..%d", applied, want)
	}
	again, err := Migrate(ctx, dsn)
	if err != nil || len(again) != 0 {
		t.Fatalf("second migrate applied %v, err %v", again, err)
	}
	s, err := New(ctx, Config{DSN: dsn}, testLogger(t))
	if err != nil {
		t.Fatalf("New after migrate: %v", err)
	}
	s.Close()
}

func TestNew_RefusesUnmigratedDatabase(t *testing.T) {
	tests := []struct {
		name  string
		setup string
	}{
		{"empty database", ""},
		{"partly migrated", "CREATE TABLE " + MigrationsTable + " (version INT PRIMARY KEY, name TEXT, applied_at TIMESTAMPTZ); INSERT INTO " + MigrationsTable + " VALUES (1, 'friends', now())"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := pgtest.NewDatabase(t)
			if tt.setup != "" {
				conn, err := pgx.Connect(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := conn.Exec(ctx, tt.setup); err != nil {
					t.Fatal(err)
				}
				conn.Close(ctx)
			}
			_, err := New(ctx, Config{DSN: dsn}, testLogger(t))
			if !errors.Is(err, ErrNotMigrated) {
				t.Fatalf("New = %v, want ErrNotMigrated", err)
			}
		})
	}
}

func TestStore_ListsModesAndSaves(t *testing.T) {
	ctx := context.Background()
	s := startStore(t, pgtest.NewDatabase(t), Config{})
	const me = 1 << 62 // above int64's positive range once doubled: hashes are stored bit for bit
	big := uint64(1<<64 - 5)
	for _, f := range []uint64{30, 10, big, 20} {
		s.AddFriend(me, f, 3) // the fourth exceeds the limit and is ignored
	}
	s.AddFriend(me, 10, 3) // duplicate
	s.DelFriend(me, 404)   // absent
	s.AddIgnore(me, 7, 100)
	s.AddIgnore(me, 8, 100)
	s.DelIgnore(me, 7)
	s.SetMode(me, privacy.Off)

	got, err := s.Load(ctx, me)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{30, 10, big}; !slices.Equal(got.Friends, want) {
		t.Errorf("friends = %v, want %v", got.Friends, want)
	}
	if want := []uint64{8}; !slices.Equal(got.Ignores, want) {
		t.Errorf("ignores = %v, want %v", got.Ignores, want)
	}
	if got.Mode != privacy.Off {
		t.Errorf("mode = %v, want off", got.Mode)
	}

	empty, err := s.LoadSave(ctx, me)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("LoadSave with no save = %q, %v; want empty, non-nil", empty, err)
	}
	acked := make(chan bool, 1)
	s.Save(me, []byte("blob-1"), func(ok bool) { acked <- ok })
	if ok := <-acked; !ok {
		t.Fatal("save not acknowledged")
	}
	data, err := s.LoadSave(ctx, me)
	if err != nil || string(data) != "blob-1" {
		t.Fatalf("LoadSave = %q, %v", data, err)
	}
	other, err := s.Load(ctx, 12345)
	if err != nil || len(other.Friends)+len(other.Ignores) != 0 || other.Mode != privacy.On {
		t.Fatalf("Load of an unknown player = %+v, %v", other, err)
	}
}

func TestStore_OutageQueuesWritesAndRecovers(t *testing.T) {
	ctx := context.Background()
	cluster := pgtest.NewCluster(t)
	s := startStore(t, cluster.URL("ether"), Config{PingInterval: 100 * time.Millisecond, OpTimeout: time.Second})
	s.AddFriend(1, 2, 200)
	poll.True(t, 5*time.Second, "first write stored", func() bool { return s.Pending() == 0 })

	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "store notices the outage", func() bool { return !s.Up() })
	if _, err := s.Load(ctx, 1); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Load during outage = %v, want ErrUnavailable", err)
	}
	acked := make(chan bool, 2)
	s.AddFriend(1, 3, 200)
	s.DelFriend(1, 2)
	s.AddIgnore(1, 9, 100)
	s.SetMode(1, privacy.Friends)
	s.Save(1, []byte("old"), func(ok bool) { acked <- ok })
	s.Save(1, []byte("new"), func(ok bool) { acked <- ok })
	if data, err := s.LoadSave(ctx, 1); err != nil || string(data) != "new" {
		t.Fatalf("LoadSave during outage = %q, %v; want the queued save", data, err)
	}
	if ok := <-acked; ok {
		t.Fatal("a save during the outage was acknowledged as stored")
	}

	if err := cluster.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Recovered():
	case <-time.After(15 * time.Second):
		t.Fatal("no recovery announced")
	}
	if s.Pending() != 0 {
		t.Fatalf("recovered with %d writes pending", s.Pending())
	}
	got, err := s.Load(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Friends, []uint64{3}) || !slices.Equal(got.Ignores, []uint64{9}) || got.Mode != privacy.Friends {
		t.Fatalf("after recovery: %+v", got)
	}
	if data, err := s.LoadSave(ctx, 1); err != nil || string(data) != "new" {
		t.Fatalf("save after recovery = %q, %v", data, err)
	}
}

// A load waits for its own player's queued list changes only: another
// player's write stuck in the database does not hold it. (It waited for
// every queued write, and under a login rush logins ran past the world's
// 5-tick pending limit: "could not complete".)
func TestStore_LoadWaitsOnlyForItsOwnWrites(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	s := startStore(t, dsn, Config{OpTimeout: 20 * time.Second})
	const me, other = 1001, 1002
	s.AddFriend(me, 9, 100)
	poll.True(t, 5*time.Second, "my write stored", func() bool { return s.Pending() == 0 })

	// Stall the writer on other's save behind a table lock.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "LOCK TABLE player_saves IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	s.Save(other, []byte("stuck"), nil)
	s.AddFriend(other, 5, 100)

	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	got, err := s.Load(lctx, me)
	if err != nil || !slices.Equal(got.Friends, []uint64{9}) {
		t.Fatalf("Load(me) behind another player's stuck write = %+v, %v; want friends [9] at once", got, err)
	}
	// other's own change is still waited for.
	sctx, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel2()
	if _, err := s.Load(sctx, other); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Load(other) with its friend add queued = %v, want to wait (deadline exceeded)", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = s.Load(ctx, other)
	if err != nil || !slices.Equal(got.Friends, []uint64{5}) {
		t.Fatalf("Load(other) after the lock = %+v, %v; want friends [5]", got, err)
	}
}
