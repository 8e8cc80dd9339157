package main

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
)

// TestHealthcheck_RealPanel runs a real `serve`: the health check passes
// while the panel and its database answer, and fails once the database is
// gone (/healthz answers 503) and once nothing listens.
func TestHealthcheck_RealPanel(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ns := natstest.Start(t)
	if r := runCmd(t, map[string]string{"DATABASE_URL": dsn}, "", "migrate"); r.code != exitOK {
		t.Fatalf("migrate: %d %s", r.code, r.stderr)
	}
	listen := "127.0.0.1:" + strconv.Itoa(freePort(t))
	vars := map[string]string{"DATABASE_URL": dsn, "NATS_URL": ns.URL(), listenEnv: listen}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan int)
	go func() {
		served <- run(ctx, []string{"serve"}, env{getenv: func(k string) string { return vars[k] }, stdout: &strings.Builder{}, stderr: &strings.Builder{}})
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-served
		}
	}
	defer stop()

	poll.Until(t, 60*time.Second, func() error { // the address comes from CORROSION_PANEL_LISTEN
		if r := runCmd(t, map[string]string{listenEnv: listen}, "", "healthcheck"); r.code != exitOK {
			return &checkErr{r}
		}
		return nil
	})
	if r := runCmd(t, nil, "", "healthcheck", "--url", "http://"+listen+"/healthz"); r.code != exitOK || !strings.Contains(r.stdout, "healthy") {
		t.Fatalf("healthcheck --url: %d %q %q", r.code, r.stdout, r.stderr)
	}

	dropDatabase(t, dsn)
	r := runCmd(t, map[string]string{listenEnv: listen}, "", "healthcheck")
	if r.code != exitFail || !strings.Contains(r.stderr, "503") || !strings.Contains(r.stderr, "database") {
		t.Fatalf("healthcheck without a database: exit %d, stderr %q; want 1 naming 503 and the database", r.code, r.stderr)
	}
	stop()
	r = runCmd(t, map[string]string{listenEnv: listen}, "", "healthcheck")
	if r.code != exitFail || !strings.Contains(r.stderr, "unhealthy") {
		t.Fatalf("healthcheck with nothing listening: exit %d, stderr %q; want 1", r.code, r.stderr)
	}
}

type checkErr struct{ r result }

func (e *checkErr) Error() string { return "exit " + strconv.Itoa(e.r.code) + ": " + e.r.stderr }

// dropDatabase removes dsn's database under the running panel.
func dropDatabase(t *testing.T, dsn string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
}

func TestHealthcheck_BadCommandLine(t *testing.T) {
	cases := []struct {
		name string
		vars map[string]string
		args []string
		want string
	}{
		{"bad url", nil, []string{"healthcheck", "--url", "127.0.0.1:7780/healthz"}, "is not an http"},
		{"bad listen env", map[string]string{listenEnv: "7780"}, []string{"healthcheck"}, listenEnv},
		{"argument", nil, []string{"healthcheck", "now"}, `unexpected argument "now"`},
		{"unknown flag", nil, []string{"healthcheck", "--frob"}, "frob"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if r := runCmd(t, c.vars, "", c.args...); r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, exitUsage, c.want)
			}
		})
	}
	if r := runCmd(t, nil, "", "healthcheck", "--help"); r.code != exitOK || !strings.Contains(r.stdout, "-url") {
		t.Fatalf("healthcheck --help: %d %q", r.code, r.stdout)
	}
}
