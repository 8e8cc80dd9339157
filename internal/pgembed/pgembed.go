// Package pgembed runs a throwaway PostgreSQL cluster from the machine's
// PostgreSQL binaries (initdb, postgres). `corrosion-panel dev` uses it when
// no DATABASE_URL is set, and pgtest uses it for tests. When running as
// root, the server runs as the `postgres` user, as PostgreSQL requires.
package pgembed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoBinaries means initdb/postgres could not be found.
var ErrNoBinaries = errors.New("pgembed: PostgreSQL binaries (initdb, postgres) not found; install PostgreSQL or set PG_BIN")

// Options configure a cluster.
type Options struct {
	Dir  string    // data directory parent; default: a new directory under os.TempDir
	Port int       // default: a free port
	Log  io.Writer // server log; default: discarded
}

// Cluster is one running (or stopped) PostgreSQL cluster listening on
// 127.0.0.1. Methods are safe for concurrent use.
type Cluster struct {
	dir     string // immutable after Start
	port    int    // immutable after Start
	bin     string // immutable after Start
	log     io.Writer
	ownsDir bool

	mu  sync.Mutex
	cmd *exec.Cmd // guarded by mu; nil while stopped
}

// Start creates the cluster (initdb) and starts the server.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	bin, err := findBinDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin, port: opts.Port, log: opts.Log}
	if c.log == nil {
		c.log = io.Discard
	}
	if c.port == 0 {
		if c.port, err = freePort(); err != nil {
			return nil, err
		}
	}
	if c.dir, err = os.MkdirTemp(opts.Dir, "corrosion-pg-"); err != nil {
		return nil, fmt.Errorf("pgembed: data dir: %w", err)
	}
	c.ownsDir = true
	if err := c.initdb(ctx); err != nil {
		c.Remove()
		return nil, err
	}
	if err := c.Resume(ctx); err != nil {
		c.Remove()
		return nil, err
	}
	return c, nil
}

// URL returns a connection string for database db as the postgres superuser.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// Port is the TCP port the server listens on.
func (c *Cluster) Port() int { return c.port }

func (c *Cluster) dataDir() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) initdb(ctx context.Context) error {
	if err := prepareDir(c.dir); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, "initdb"),
		"-D", c.dataDir(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-locale")
	cmd.Dir = c.dir
	asPostgresUser(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgembed: initdb: %w: %s", err, out)
	}
	return nil
}

// Resume starts the server on the existing data directory and waits until
// it accepts connections. Calling it on a running cluster does nothing.
func (c *Cluster) Resume(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd != nil {
		return nil
	}
	cmd := exec.Command(filepath.Join(c.bin, "postgres"),
		"-D", c.dataDir(), "-p", strconv.Itoa(c.port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+c.dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=32MB")
	cmd.Dir = c.dir
	cmd.Stdout, cmd.Stderr = c.log, c.log
	asPostgresUser(cmd)
	dieWithParent(cmd)
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgembed: start postgres: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := waitReady(ctx, c.URL("postgres"), exited); err != nil {
		_ = cmd.Process.Kill()
		return err
	}
	c.cmd = cmd // the goroutine above reaps it; exited is buffered
	return nil
}

func waitReady(ctx context.Context, url string, exited <-chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgx.Connect(cctx, url)
		cancel()
		if err == nil {
			_ = conn.Close(ctx)
			return nil
		}
		select {
		case werr := <-exited:
			return fmt.Errorf("pgembed: postgres exited during start: %v", werr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgembed: postgres not ready after 30s: %w", err)
		}
	}
}

// Stop shuts the server down (fast mode: clients are disconnected) and keeps the data, so
// Resume can bring it back: tests use this to simulate a database outage.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return nil
	}
	if err := c.cmd.Process.Signal(sigFast); err != nil {
		_ = c.cmd.Process.Kill()
	}
	// Wait until the port is closed: the waiter goroutine owns cmd.Wait.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if err := c.cmd.Process.Signal(sigZero); err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.cmd = nil
	return nil
}

// Remove stops the server and deletes its data directory.
func (c *Cluster) Remove() {
	_ = c.Stop()
	if c.ownsDir && c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}

// CreateDatabase creates database name (which must be a plain identifier).
func (c *Cluster) CreateDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("pgembed: connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("pgembed: create database %s: %w", name, err)
	}
	return nil
}

func findBinDir() (string, error) {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	for i := len(matches) - 1; i >= 0; i-- {
		return filepath.Dir(matches[i]), nil
	}
	return "", ErrNoBinaries
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgembed: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
