package migrate

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corrosion/corrosion/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const testLock = 0x7465737401 // "test\x01"

func set(files map[string]string) Set {
	fsys := fstest.MapFS{}
	for name, sql := range files {
		fsys["m/"+name] = &fstest.MapFile{Data: []byte(sql)}
	}
	return Set{FS: fsys, Dir: "m", Table: "test_schema_migrations", LockKey: testLock}
}

var threeSteps = map[string]string{
	"0001_items.sql":  "CREATE TABLE items (id INT PRIMARY KEY);",
	"0002_seed.sql":   "INSERT INTO items VALUES (1), (2);",
	"0003_column.sql": "ALTER TABLE items ADD COLUMN label TEXT NOT NULL DEFAULT 'x';",
}

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func recorded(t *testing.T, conn *pgx.Conn, table string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT version::text || '_' || name FROM "+table+" ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestApply_InOrderThenIdempotent(t *testing.T) {
	ctx := context.Background()
	s := set(threeSteps)
	dsn := pgtest.NewDatabase(t)
	conn := connect(t, dsn)

	pending, err := s.Pending(ctx, conn)
	if err != nil || len(pending) != 3 {
		t.Fatalf("Pending before = %v, %v; want 3", pending, err)
	}
	applied, err := s.Apply(ctx, dsn)
	if err != nil || !slices.Equal(applied, []int{1, 2, 3}) {
		t.Fatalf("Apply = %v, %v; want [1 2 3]", applied, err)
	}
	if got := recorded(t, conn, s.Table); !slices.Equal(got, []string{"1_items", "2_seed", "3_column"}) {
		t.Fatalf("recorded %v", got)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM items WHERE label = 'x'").Scan(&n); err != nil || n != 2 {
		t.Fatalf("items after migrations: %d, %v", n, err)
	}
	again, err := s.Apply(ctx, dsn)
	if err != nil || len(again) != 0 {
		t.Fatalf("second Apply = %v, %v; want nothing", again, err)
	}
	if pending, err := s.Pending(ctx, conn); err != nil || len(pending) != 0 {
		t.Fatalf("Pending after = %v, %v; want none", pending, err)
	}
}

func TestApply_OnlyTheNewMigrationsOfALongerSet(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	first := map[string]string{"0001_items.sql": threeSteps["0001_items.sql"]}
	if _, err := set(first).Apply(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	pending, err := set(threeSteps).Pending(ctx, connect(t, dsn))
	if err != nil || len(pending) != 2 || pending[0].File != "0002_seed.sql" {
		t.Fatalf("Pending = %+v, %v; want 0002 and 0003", pending, err)
	}
	applied, err := set(threeSteps).Apply(ctx, dsn)
	if err != nil || !slices.Equal(applied, []int{2, 3}) {
		t.Fatalf("Apply = %v, %v; want [2 3]", applied, err)
	}
}

func TestApply_CreatesMissingDatabase(t *testing.T) {
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "_"))
	if _, err := set(threeSteps).Apply(context.Background(), u.String()); err != nil {
		t.Fatal(err)
	}
	if got := recorded(t, connect(t, u.String()), "test_schema_migrations"); len(got) != 3 {
		t.Fatalf("recorded %v", got)
	}
}

func TestPending_MissingDatabaseIsAnError(t *testing.T) {
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/never_created"
	pool, err := pgxpool.New(context.Background(), u.String()) // connects lazily
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	_, err = set(threeSteps).Pending(context.Background(), pool)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "3D000" {
		t.Fatalf("Pending on a missing database: %v, want a wrapped 3D000", err)
	}
}

// Concurrent runs on one database: the advisory lock lets exactly one of
// them apply each migration; the rest find nothing to do. Without the lock
// two runs would both try version 1 and one would fail on CREATE TABLE.
func TestApply_ConcurrentRunsAreSerialised(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"0001_items.sql": "CREATE TABLE items (id INT PRIMARY KEY); SELECT pg_sleep(0.2);",
		"0002_seed.sql":  "INSERT INTO items VALUES (1), (2);",
	}
	s := set(files)
	dsn := pgtest.NewDatabase(t)
	const runs = 6
	var wg sync.WaitGroup
	results := make([][]int, runs)
	errs := make([]error, runs)
	for i := range runs {
		wg.Go(func() { results[i], errs[i] = s.Apply(ctx, dsn) })
	}
	wg.Wait()
	var all []int
	for i := range runs {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		all = append(all, results[i]...)
	}
	slices.Sort(all)
	if !slices.Equal(all, []int{1, 2}) {
		t.Fatalf("versions applied across runs: %v, want each once", all)
	}
}

func TestMigrations_RefusesBadSets(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		table string
		want  string
	}{
		{"gap", map[string]string{"0001_a.sql": "SELECT 1", "0003_c.sql": "SELECT 1"}, "", "0003_c.sql: versions must run 1..n without gaps"},
		{"not from one", map[string]string{"0002_b.sql": "SELECT 1"}, "", "0002_b.sql: versions must run 1..n"},
		{"duplicate", map[string]string{"0001_a.sql": "SELECT 1", "0001_b.sql": "SELECT 1"}, "", "share version 1"},
		{"no number", map[string]string{"init.sql": "SELECT 1"}, "", "init.sql: name must be NNNN_name.sql"},
		{"no name", map[string]string{"0001.sql": "SELECT 1"}, "", "0001.sql: name must be"},
		{"not sql", map[string]string{"0001_a.txt": "SELECT 1"}, "", "0001_a.txt: name must be"},
		{"upper case", map[string]string{"0001_Items.sql": "SELECT 1"}, "", "0001_Items.sql: name must be"},
		{"version zero", map[string]string{"0000_a.sql": "SELECT 1"}, "", "0000_a.sql: version must be a positive number"},
		{"empty file", map[string]string{"0001_a.sql": " \n"}, "", "0001_a.sql is empty"},
		{"bad table", map[string]string{"0001_a.sql": "SELECT 1"}, "x; DROP TABLE y", "versions table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := set(tt.files)
			if tt.table != "" {
				s.Table = tt.table
			}
			_, err := s.Migrations()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Migrations = %v, want an error containing %q", err, tt.want)
			}
			// Apply refuses before it touches any database.
			if _, err := s.Apply(context.Background(), "postgres://127.0.0.1:1/none"); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Apply = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// A failing migration rolls back whole (its first statement too), is not
// recorded, names its file, and leaves the earlier ones applied.
func TestApply_FailingMigrationRollsBackAndNamesTheFile(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"0001_items.sql":  "CREATE TABLE items (id INT PRIMARY KEY);",
		"0002_broken.sql": "CREATE TABLE half (id INT); INSERT INTO no_such_table VALUES (1);",
		"0003_later.sql":  "CREATE TABLE later (id INT);",
	}
	dsn := pgtest.NewDatabase(t)
	applied, err := set(files).Apply(ctx, dsn)
	if err == nil || !strings.Contains(err.Error(), "0002_broken.sql") {
		t.Fatalf("Apply = %v, want an error naming 0002_broken.sql", err)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42P01" {
		t.Fatalf("Apply error %v does not wrap the server's error", err)
	}
	if !slices.Equal(applied, []int{1}) {
		t.Fatalf("applied %v, want [1]", applied)
	}
	conn := connect(t, dsn)
	if got := recorded(t, conn, "test_schema_migrations"); !slices.Equal(got, []string{"1_items"}) {
		t.Fatalf("recorded %v, want only 1_items", got)
	}
	for _, table := range []string{"half", "later"} {
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists); err != nil || exists {
			t.Fatalf("table %s exists=%v (err %v) after the failed migration", table, exists, err)
		}
	}
	pending, err := set(files).Pending(ctx, conn)
	if err != nil || len(pending) != 2 {
		t.Fatalf("Pending = %v, %v; want 0002 and 0003", pending, err)
	}
}

// Two sets with their own tables share one database without seeing each
// other's versions (ether and worldsrv do).
func TestApply_SetsWithOwnTablesShareADatabase(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	a := set(threeSteps)
	b := set(map[string]string{"0001_other.sql": "CREATE TABLE other (id INT);"})
	b.Table, b.LockKey = "other_schema_migrations", testLock+1
	if _, err := a.Apply(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	applied, err := b.Apply(ctx, dsn)
	if err != nil || !slices.Equal(applied, []int{1}) {
		t.Fatalf("second set applied %v, %v; want [1]", applied, err)
	}
}
