package dev

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/internal/pgembed"
	"github.com/corrosion/corrosion/internal/redact"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/store"
)

// Databases of a throwaway cluster.
const (
	panelDBName = "corrosion_panel"
	gameDBName  = "corrosion_worlds" // the worlds' accounts and ether's lists
)

// dbHandle is the databases of a dev run.
type dbHandle struct {
	panelDSN string
	game     gameDB
	shown    string // for the banner: credentials hidden
	stop     func()
}

// startDB starts a throwaway cluster when dsn is empty; else the panel
// uses dsn and the worlds a database named after it with _worlds.
func startDB(ctx context.Context, dsn string, log *slog.Logger) (dbHandle, error) {
	if dsn != "" {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return dbHandle{}, fmt.Errorf("DATABASE_URL %q does not parse", redact.URL(dsn))
		}
		g := gameDB{host: cfg.Host, port: int(cfg.Port), user: cfg.User, pass: cfg.Password, name: cfg.Database + "_worlds"}
		return dbHandle{panelDSN: dsn, game: g, shown: redact.URL(dsn) + " (DATABASE_URL)", stop: func() {}}, nil
	}
	c, err := pgembed.Start(ctx, pgembed.Options{})
	if errors.Is(err, pgembed.ErrNoBinaries) {
		return dbHandle{}, errors.New("no PostgreSQL binaries (initdb, postgres) on this machine: apt-get install postgresql (or set DATABASE_URL)")
	}
	if err != nil {
		return dbHandle{}, fmt.Errorf("start a throwaway Postgres: %w", err)
	}
	if err := c.CreateDatabase(ctx, panelDBName); err != nil {
		c.Remove()
		return dbHandle{}, err
	}
	log.Debug("throwaway postgres", "port", c.Port())
	g := gameDB{host: "127.0.0.1", port: c.Port(), user: "postgres", name: gameDBName}
	return dbHandle{panelDSN: c.URL(panelDBName), game: g,
		shown: c.URL(panelDBName) + " (throwaway, removed at exit)", stop: c.Remove}, nil
}

// prepareStore migrates the panel's database, creates the demo license
// and the admin operator with a fresh password (a reused database's admin
// gets a new one), and returns the password.
func prepareStore(ctx context.Context, dsn string) (string, error) {
	if _, err := store.Migrate(ctx, dsn); err != nil {
		return "", fmt.Errorf("migrate the panel's database: %w", err)
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer st.Close()
	if err := st.CreateLicense(ctx, License, "Demo host (corrosion-panel dev)"); err != nil && !errors.Is(err, store.ErrLicenseExists) {
		return "", err
	}
	password := GeneratePassword()
	hash, err := auth.HashPassword(password, auth.DefaultParams)
	if err != nil {
		return "", err
	}
	u, err := st.UserByName(ctx, "admin")
	switch {
	case errors.Is(err, store.ErrNotFound):
		_, err = st.CreateUser(ctx, "admin", hash, string(auth.RoleAdmin))
		return password, err
	case err != nil:
		return "", err
	}
	if err := st.SetPassword(ctx, u.ID, hash); err != nil {
		return "", err
	}
	if err := st.SetRole(ctx, u.ID, string(auth.RoleAdmin)); err != nil {
		return "", err
	}
	return password, st.EnableUser(ctx, u.ID)
}

// etherMigrate runs `ether migrate` once for both sidecars (they share
// the worlds' database); it creates the database when missing.
func etherMigrate(ctx context.Context, bin string, db gameDB, natsURL string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "migrate")
	cmd.Env = append(os.Environ(), "RS_NODE_ID=10", "RS_CLUSTER_HOSTS="+natsURL)
	for k, v := range db.env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ether migrate: %w: %s", err, strings.TrimSpace(lastLines(out.String(), 5)))
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// passwordAlphabet has no look-alike characters (0/O, 1/l/I).
const passwordAlphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// GeneratePassword returns a random 20-character password (about 116
// bits) without look-alike characters.
func GeneratePassword() string {
	const n = 20
	limit := 256 - 256%len(passwordAlphabet) // bytes at or above it are skipped: no modulo bias
	out := make([]byte, 0, n)
	b := make([]byte, n)
	for len(out) < n {
		_, _ = rand.Read(b) // never fails (crypto/rand)
		for _, c := range b {
			if int(c) < limit && len(out) < n {
				out = append(out, passwordAlphabet[int(c)%len(passwordAlphabet)])
			}
		}
	}
	return string(out)
}
