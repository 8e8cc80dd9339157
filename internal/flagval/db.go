package flagval

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// DB is the Postgres database as the seed names it for ether and its world:
// RS_DB_HOST, RS_DB_PORT, RS_DB_NAME, RS_DB_USER and RS_DB_PASS (or
// RS_DB_PASS_FILE), each also a --db-* flag. Both binaries take it through
// this one type: the same defaults, variables, flags, check and URL.
type DB struct {
	Host string // RS_DB_HOST, --db-host (default localhost)
	Port int    // RS_DB_PORT, --db-port (default 5432)
	Name string // RS_DB_NAME, --db-name (default postgres)
	User string // RS_DB_USER, --db-user (default postgres)
	Pass string // RS_DB_PASS, --db-pass, RS_DB_PASS_FILE, --db-pass-file (default password). Secret: never printed
}

// DefaultDB is the seed's database settings.
func DefaultDB() DB {
	return DB{Host: "localhost", Port: 5432, Name: "postgres", User: "postgres", Pass: "password"}
}

// Vars are d's settings, for a binary's config table.
func (d *DB) Vars() []Var {
	return []Var{
		{Flag: "db-host", Env: "RS_DB_HOST", Usage: "Postgres host", Set: String(&d.Host), Get: func() string { return d.Host }},
		{Flag: "db-port", Env: "RS_DB_PORT", Usage: "Postgres port", Set: Port(&d.Port), Get: func() string { return strconv.Itoa(d.Port) }},
		{Flag: "db-name", Env: "RS_DB_NAME", Usage: "Postgres database", Set: String(&d.Name), Get: func() string { return d.Name }},
		{Flag: "db-user", Env: "RS_DB_USER", Usage: "Postgres user", Set: String(&d.User), Get: func() string { return d.User }},
		{Flag: "db-pass", Env: "RS_DB_PASS", Usage: SecretUsage("Postgres password", "RS_DB_PASS", "db-pass-file"), Set: String(&d.Pass), Get: func() string { return Shown(d.Pass) }},
		{Flag: "db-pass-file", Env: "RS_DB_PASS_FILE", Usage: "file holding the Postgres password", Set: SecretFile(&d.Pass), Get: NoDefault},
	}
}

// Check names the first bad setting by its flag and variable, such as
// "--db-port (RS_DB_PORT): 0 is not a TCP port"; the binary wraps it in
// its ErrConfig. The password may be empty.
func (d DB) Check() error {
	switch {
	case d.Host == "":
		return errors.New("--db-host (RS_DB_HOST): empty")
	case d.Port <= 0 || d.Port > 65535:
		return fmt.Errorf("--db-port (RS_DB_PORT): %d is not a TCP port", d.Port)
	case d.Name == "":
		return errors.New("--db-name (RS_DB_NAME): empty")
	case d.User == "":
		return errors.New("--db-user (RS_DB_USER): empty")
	}
	return nil
}

// URL is the postgres:// URL of d. It holds the password: never log it
// (internal/redact hides it).
func (d DB) URL() string {
	u := url.URL{
		Scheme: "postgres",
		User:   url.UserPassword(d.User, d.Pass),
		Host:   net.JoinHostPort(d.Host, strconv.Itoa(d.Port)),
		Path:   "/" + d.Name,
	}
	return u.String()
}

// String names d for messages and logs: "NAME on HOST:PORT", never the
// user or password.
func (d DB) String() string {
	return d.Name + " on " + net.JoinHostPort(d.Host, strconv.Itoa(d.Port))
}

// ParseDB is the inverse of URL: the settings of a postgres:// (or
// postgresql://) URL with a host, a port and a database name, such as a
// test database's. Anything else is refused, naming what is missing.
func ParseDB(rawURL string) (DB, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return DB{}, fmt.Errorf("database url: %w", err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return DB{}, fmt.Errorf("database url: scheme %q is not postgres", u.Scheme)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || port <= 0 || port > 65535 {
		return DB{}, fmt.Errorf("database url: port %q is not a TCP port", u.Port())
	}
	d := DB{Host: u.Hostname(), Port: port, Name: strings.TrimPrefix(u.Path, "/"), User: u.User.Username()}
	d.Pass, _ = u.User.Password()
	if d.Host == "" || d.Name == "" || strings.Contains(d.Name, "/") {
		return DB{}, errors.New("database url: no host or no database name")
	}
	if _, err := netip.ParseAddr(d.Host); err != nil && strings.Contains(d.Host, ":") {
		return DB{}, fmt.Errorf("database url: host %q is neither a name nor an address", d.Host)
	}
	return d, nil
}

// Env is d as the RS_DB_* variables ("RS_DB_HOST=…"), for a child process
// such as a spawned ether; an empty field (a zero port) is left out, to
// the child's default.
func (d DB) Env() []string {
	var env []string
	add := func(name, v string) {
		if v != "" {
			env = append(env, name+"="+v)
		}
	}
	add("RS_DB_HOST", d.Host)
	if d.Port != 0 {
		add("RS_DB_PORT", strconv.Itoa(d.Port))
	}
	add("RS_DB_NAME", d.Name)
	add("RS_DB_USER", d.User)
	add("RS_DB_PASS", d.Pass)
	return env
}
