package flagval

import (
	"errors"
	"strings"
	"testing"
)

var errDB = errors.New("bad config")

// The DB settings layer like every other (flags over variables over the
// seed's defaults), the password file included, and Check names the first
// bad one by its flag and variable.
func TestDB_LoadAndCheck(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want DB
		bad  string // "" valid, else what the error names
	}{
		{name: "defaults", want: DefaultDB()},
		{name: "variables", env: map[string]string{"RS_DB_HOST": "db", "RS_DB_PORT": "6543", "RS_DB_NAME": "rs", "RS_DB_USER": "u", "RS_DB_PASS": "p"},
			want: DB{Host: "db", Port: 6543, Name: "rs", User: "u", Pass: "p"}},
		{name: "flag over variable", args: []string{"--db-host", "flag"}, env: map[string]string{"RS_DB_HOST": "env"},
			want: DB{Host: "flag", Port: 5432, Name: "postgres", User: "postgres", Pass: "password"}},
		{name: "empty host", args: []string{"--db-host", ""}, bad: "--db-host (RS_DB_HOST): empty"},
		{name: "port zero", args: []string{"--db-port", "0"}, bad: "--db-port (RS_DB_PORT): 0 is not a TCP port"},
		{name: "port not a port", env: map[string]string{"RS_DB_PORT": "-1"}, bad: `RS_DB_PORT="-1": not a TCP port`},
		{name: "empty name", args: []string{"--db-name", ""}, bad: "--db-name (RS_DB_NAME): empty"},
		{name: "empty user", env: map[string]string{"RS_DB_USER": " "}, want: DB{Host: "localhost", Port: 5432, Name: "postgres", User: " ", Pass: "password"}},
		{name: "empty password", args: []string{"--db-pass", ""}, want: DB{Host: "localhost", Port: 5432, Name: "postgres", User: "postgres"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := DefaultDB()
			err := Load("t", d.Vars(), func(k string) string { return c.env[k] }, c.args, errDB)
			if err == nil {
				err = d.Check()
			}
			if c.bad != "" {
				if err == nil || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("err = %v, want one naming %q", err, c.bad)
				}
				return
			}
			if err != nil || d != c.want {
				t.Fatalf("got %+v, %v; want %+v", d, err, c.want)
			}
		})
	}
}

// URL and ParseDB are each other's inverse; String never shows the user
// or the password.
func TestDB_URL(t *testing.T) {
	d := DB{Host: "::1", Port: 6543, Name: "rs", User: "app", Pass: "p@ss word/"}
	if got, want := d.URL(), "postgres://app:p%40ss%20word%2F@[::1]:6543/rs"; got != want {
		t.Fatalf("URL = %s, want %s", got, want)
	}
	back, err := ParseDB(d.URL())
	if err != nil || back != d {
		t.Fatalf("ParseDB(URL) = %+v, %v; want %+v", back, err, d)
	}
	if s := d.String(); s != "rs on [::1]:6543" {
		t.Fatalf("String = %q", s)
	}
	for _, bad := range []string{"", "mysql://u@h:1/db", "postgres://h/db", "postgres://h:0/db", "postgres://:5432/db", "postgres://h:5432/", "postgres://h:5432/a/b", "postgres://h:x/db"} {
		if d, err := ParseDB(bad); err == nil {
			t.Errorf("ParseDB(%q) = %+v, want an error", bad, d)
		}
	}
}

// Env gives the set fields as RS_DB_* variables, which load back to the
// same settings.
func TestDB_Env(t *testing.T) {
	d := DB{Host: "db", Port: 6543, Name: "rs", User: "u", Pass: "p=q"}
	env := map[string]string{}
	for _, kv := range d.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	back := DB{}
	if err := Load("t", back.Vars(), func(k string) string { return env[k] }, nil, errDB); err != nil || back != d {
		t.Fatalf("loaded from %v: %+v, %v; want %+v", d.Env(), back, err, d)
	}
	if got := (DB{Name: "only"}).Env(); len(got) != 1 || got[0] != "RS_DB_NAME=only" {
		t.Fatalf("Env of a name alone = %v", got)
	}
}

// FuzzParseDB: any input is refused with an error or parsed to settings
// that pass Check and survive the round trip through URL.
func FuzzParseDB(f *testing.F) {
	f.Add("postgres://postgres:password@localhost:5432/postgres")
	f.Add("postgresql://u@[::1]:1/x")
	f.Add("postgres://h:99999/db")
	f.Add("postgres://%zz@h:1/db")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDB(s)
		if err != nil {
			return
		}
		if err := d.Check(); err != nil && d.User != "" {
			t.Fatalf("ParseDB(%q) = %+v, which Check refuses: %v", s, d, err)
		}
		if back, err := ParseDB(d.URL()); err != nil || back != d {
			t.Fatalf("ParseDB(%q) = %+v; round trip %+v, %v", s, d, back, err)
		}
	})
}
