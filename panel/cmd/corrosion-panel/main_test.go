package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// result is one in-process run of the command.
type result struct {
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, vars map[string]string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	e := env{getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut}
	code := run(ctx, args, e)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		vars map[string]string
		args []string
		code int
		want string
	}{
		{"no command", nil, nil, exitUsage, "usage: corrosion-panel"},
		{"unknown command", nil, []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"serve without database", nil, []string{"serve"}, exitUsage, "--database-url (DATABASE_URL)"},
		{"serve bad listen", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db"}, []string{"serve", "--listen", "nope"}, exitUsage, "--listen (CORROSION_PANEL_LISTEN)"},
		{"serve bad nats url", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "NATS_URL": "http//"}, []string{"serve"}, exitUsage, "--nats-url (NATS_URL)"},
		{"serve two nats auths", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db"}, []string{"serve", "--nats-token", "t", "--nats-user", "u", "--nats-password", "p"}, exitUsage, "set one way to authenticate"},
		{"serve missing creds file", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db"}, []string{"serve", "--nats-creds", "/nonexistent.creds"}, exitUsage, "--nats-creds (NATS_CREDS)"},
		{"serve bad origin", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db"}, []string{"serve", "--trusted-origins", "panel.example.com"}, exitUsage, "--trusted-origins"},
		{"serve bad log level env", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "CORROSION_PANEL_LOG_LEVEL": "loud"}, []string{"serve"}, exitUsage, "CORROSION_PANEL_LOG_LEVEL"},
		{"serve unknown flag", nil, []string{"serve", "--frob"}, exitUsage, "frob"},
		{"migrate without database", nil, []string{"migrate"}, exitUsage, "--database-url (DATABASE_URL) is not set"},
		{"user without add", nil, []string{"user"}, exitUsage, "user add --name"},
		{"user add bad role", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db"}, []string{"user", "add", "--name", "a", "--role", "king"}, exitUsage, `--role "king"`},
		{"user add no name", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db"}, []string{"user", "add", "--role", "admin"}, exitUsage, "--name is required"},
		{"license add no id", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db"}, []string{"license", "add"}, exitUsage, "--id is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCmd(t, c.vars, "", c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, c.code, c.want)
			}
		})
	}
}

// TestHelpForEveryCommand: every command's --help is its usage on stdout,
// which never shows the password of $DATABASE_URL (it showed it as the
// --database-url default in migrate, user add, license add and dev).
func TestHelpForEveryCommand(t *testing.T) {
	const secret = "pwSECRET"
	vars := map[string]string{"DATABASE_URL": "postgres://u:" + secret + "@127.0.0.1:5432/db"}
	for _, args := range [][]string{{"--help"}, {"serve", "--help"}, {"migrate", "--help"}, {"user", "add", "--help"},
		{"license", "add", "--help"}, {"dev", "--help"}} {
		r := runCmd(t, vars, "", args...)
		if r.code != exitOK || r.stdout == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%v shows the database password:\n%s", args, r.stdout)
		}
	}
	if r := runCmd(t, nil, "", "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "corrosion-panel ") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
}

func TestServeRefusesUnmigratedDatabase(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	r := runCmd(t, map[string]string{"DATABASE_URL": dsn}, "", "serve", "--listen", "127.0.0.1:0")
	if r.code != exitFail || !strings.Contains(r.stderr, "corrosion-panel migrate") {
		t.Fatalf("exit %d, stderr %q; want 1 and a message naming `corrosion-panel migrate`", r.code, r.stderr)
	}
	if lines := strings.Count(strings.TrimSpace(r.stderr), "\n"); lines > 1 {
		t.Errorf("want one clear line (after the start line), got:\n%s", r.stderr)
	}
}

func TestMigrateUserLicense(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	vars := map[string]string{"DATABASE_URL": dsn}
	r := runCmd(t, vars, "", "migrate")
	if r.code != 0 || !strings.Contains(r.stdout, "applied migration 0001") {
		t.Fatalf("migrate: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r = runCmd(t, vars, "", "migrate"); r.code != 0 || !strings.Contains(r.stdout, "up to date") {
		t.Fatalf("second migrate: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, nil, "", "user", "add", "--database-url", dsn, "--name", "alice", "--role", "admin")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "username: alice  password: ") {
		t.Fatalf("user add: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if pw := strings.TrimSpace(strings.TrimPrefix(r.stdout, "username: alice  password: ")); len(pw) < 20 {
		t.Errorf("generated password %q is short", pw)
	}
	if r = runCmd(t, vars, "", "user", "add", "--name", "alice", "--role", "viewer", "--password-stdin"); r.code != 1 {
		t.Errorf("user add of a taken name: %d %q", r.code, r.stderr)
	}
	r = runCmd(t, vars, "correct horse battery staple\n", "user", "add", "--name", "bob", "--role", "operator", "--password-stdin")
	if r.code != 0 || strings.Contains(r.stdout, "staple") {
		t.Fatalf("user add --password-stdin: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r = runCmd(t, vars, "short\n", "user", "add", "--name", "carol", "--role", "viewer", "--password-stdin"); r.code != 1 || !strings.Contains(r.stderr, "password") {
		t.Errorf("short password: %d %q", r.code, r.stderr)
	}
	if r = runCmd(t, vars, "", "license", "add", "--id", "demo", "--label", "Demo host"); r.code != 0 {
		t.Fatalf("license add: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, vars, "", "user", "add", "--name", "dave", "--role", "viewer", "--licenses", "demo,nope")
	if r.code != 1 || !strings.Contains(r.stderr, `no license "nope"`) {
		t.Errorf("user add with an unknown license: %d %q", r.code, r.stderr)
	}
	if r = runCmd(t, vars, "", "user", "add", "--name", "dave", "--role", "viewer", "--licenses", "demo"); r.code != 0 {
		t.Errorf("user add --licenses demo: %d %q", r.code, r.stderr)
	}
	if r = runCmd(t, vars, "", "license", "add", "--id", "bad id!"); r.code != 1 || !strings.Contains(r.stderr, "invalid license id") {
		t.Errorf("bad license id: %d %q", r.code, r.stderr)
	}
	if r = runCmd(t, vars, "", "license", "add", "--id", "demo"); r.code != 1 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("duplicate license: %d %q", r.code, r.stderr)
	}
	checkRows(t, dsn)
}

func TestMigrateCreatesTheDatabase(t *testing.T) {
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path += "_created_by_migrate"
	r := runCmd(t, nil, "", "migrate", "--database-url", u.String())
	if r.code != 0 || !strings.Contains(r.stdout, "database at version") {
		t.Fatalf("migrate of a missing database: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r = runCmd(t, nil, "", "license", "add", "--database-url", u.String(), "--id", "made-after-migrate"); r.code != 0 {
		t.Fatalf("license add after migrate: %d %q", r.code, r.stderr)
	}
}

func checkRows(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.UserByName(ctx, "bob")
	if err != nil || u.Role != "operator" || !strings.HasPrefix(u.PasswordHash, "$argon2id$") {
		t.Errorf("bob: %+v %v", u, err)
	}
	if d, err := st.UserByName(ctx, "dave"); err != nil || len(d.Licenses) != 1 || d.Licenses[0] != "demo" {
		t.Errorf("dave (refused once for an unknown license, then added with demo): %+v %v", d, err)
	}
	ls, err := st.Licenses(ctx)
	if err != nil || len(ls) != 1 || ls[0].ID != "demo" || ls[0].Label != "Demo host" {
		t.Errorf("licenses: %+v %v", ls, err)
	}
}

func TestDevRefusesBadFlagsAndTakenPortsInOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dev", "--world-ports", "some"}, `--world-ports "some" is not design or free`},
		{[]string{"dev", "--nats-port", "0"}, "--nats-port 0 is not 1-65535"},
		{[]string{"dev", "--listen", "7780"}, `--listen "7780" is not host:port`},
		{[]string{"dev", "--log-level", "chatty"}, "unknown log level"},
	} {
		if r := runCmd(t, nil, "", c.args...); r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	r := runCmd(t, nil, "", "dev", "--listen", taken.Addr().String(), "--world-ports", "free")
	want := fmt.Sprintf("%s (the panel) is held by pid %d (", taken.Addr(), os.Getpid())
	if r.code != exitFail || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("taken panel port: exit %d, stderr %q; want 1 and one line naming the address and its holder", r.code, r.stderr)
	}
}

func TestDevNamesAMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // nothing next to the test binary, nothing on PATH
	r := runCmd(t, nil, "", "dev", "--listen", "127.0.0.1:0", "--nats-port", strconv.Itoa(freePort(t)), "--world-ports", "free")
	if r.code != exitFail || !strings.Contains(r.stderr, "no corrosion-agent binary") || !strings.Contains(r.stderr, "make build") {
		t.Errorf("exit %d, stderr %q; want 1 naming the missing corrosion-agent and `make build`", r.code, r.stderr)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
