package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a directory with an instance root and an executable, so that
// managed instances validate.
type fixture struct {
	dir  string
	root string // an existing directory
	exe  string // an existing executable file
	file string // an existing regular, non-executable file
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{
		dir:  dir,
		root: filepath.Join(dir, "root"),
		exe:  filepath.Join(dir, "game.sh"),
		file: filepath.Join(dir, "plain.txt"),
	}
	if err := os.Mkdir(f.root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// baseTOML is a small valid config; ROOT and EXE are replaced by the
// fixture's paths.
const baseTOML = `
[agent]
license_id = "lic-1"

[[probe]]
name = "panel"
host = "127.0.0.1"
port = 7780

[[instance]]
id = "ether10"
game = "ether"
root = "ROOT"
exec = "EXE"

[[instance]]
id = "world10"
game = "worldsrv"
root = "ROOT"
exec = "EXE"
depends_on = ["ether10"]

[instance.rcon]
port = 25510
password = "pw"

[[instance]]
id = "rust-main"
game = "rust"
root = "ROOT/missing"
`

func (f *fixture) toml(s string) []byte {
	s = strings.ReplaceAll(s, "ROOT", filepath.ToSlash(f.root))
	s = strings.ReplaceAll(s, "EXE", filepath.ToSlash(f.exe))
	return []byte(s)
}

// mapEnv is a lookupEnv over a map.
func mapEnv(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func noEnv(string) (string, bool) { return "", false }

// fieldErrors unpacks a joined error into its FieldErrors, failing on any
// other kind.
func fieldErrors(t *testing.T, err error) []*FieldError {
	t.Helper()
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else if err != nil {
		errs = []error{err}
	}
	out := make([]*FieldError, 0, len(errs))
	for _, e := range errs {
		var fe *FieldError
		if !errors.As(e, &fe) {
			t.Fatalf("error %q is not a *FieldError", e)
		}
		out = append(out, fe)
	}
	return out
}

// wantProblem checks err has a FieldError on field whose text contains
// every one of subs.
func wantProblem(t *testing.T, err error, field string, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one on %s", field)
	}
	for _, fe := range fieldErrors(t, err) {
		if fe.Field != field {
			continue
		}
		msg := fe.Error()
		ok := strings.HasPrefix(msg, field+": ")
		for _, s := range subs {
			ok = ok && strings.Contains(msg, s)
		}
		if ok {
			return
		}
	}
	t.Fatalf("no problem on %s containing %q in:\n%v", field, subs, err)
}
