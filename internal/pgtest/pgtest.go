// Package pgtest gives tests a real PostgreSQL database: either the server
// named by TEST_DATABASE_URL, or a throwaway cluster started from the
// machine's binaries (see pgembed). A missing PostgreSQL fails the test; it
// never skips. Imported only by tests.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/internal/pgembed"
)

var (
	sharedOnce sync.Once
	shared     *pgembed.Cluster
	sharedErr  error
	dbSeq      atomic.Int64
)

// Main runs the tests of a package and removes the shared cluster after
// them. Use it from TestMain: func TestMain(m *testing.M) { pgtest.Main(m) }.
// Without it the cluster still dies with the test binary (parent-death
// signal) but its temporary directory is left behind.
func Main(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Remove()
	}
	os.Exit(code)
}

// NewDatabase creates a fresh, empty database and returns its URL. The
// database lives in a cluster shared by the whole test binary.
func NewDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbSeq.Add(1))
	if base := os.Getenv("TEST_DATABASE_URL"); base != "" {
		return createIn(ctx, t, base, name)
	}
	sharedOnce.Do(func() {
		shared, sharedErr = pgembed.Start(context.Background(), pgembed.Options{})
	})
	if sharedErr != nil {
		t.Fatalf("pgtest: no PostgreSQL: %v", sharedErr)
	}
	if err := shared.CreateDatabase(ctx, name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return shared.URL(name)
}

// NewCluster starts a cluster of the test's own, for tests that stop and
// restart the database. It is removed at cleanup.
func NewCluster(t testing.TB) *pgembed.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := pgembed.Start(ctx, pgembed.Options{})
	if err != nil {
		t.Fatalf("pgtest: no PostgreSQL: %v", err)
	}
	t.Cleanup(c.Remove)
	return c
}

func createIn(ctx context.Context, t testing.TB, base, name string) string {
	t.Helper()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect TEST_DATABASE_URL: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: TEST_DATABASE_URL: %v", err)
	}
	u.Path = "/" + strings.TrimPrefix(name, "/")
	return u.String()
}
