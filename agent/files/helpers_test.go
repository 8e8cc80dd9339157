package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// env is a test instance: base/root is the instance root, base/sentinel a
// directory outside it that no request may touch.
type env struct {
	t        *testing.T
	m        *Manager
	base     string
	root     string
	sentinel string
}

// testLogger sends the package's logs to t.Log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tLogWriter struct{ t testing.TB }

func (w tLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func newEnv(t *testing.T, deny ...string) *env {
	t.Helper()
	return newEnvLimits(t, Limits{}, deny...)
}

func newEnvLimits(t *testing.T, l Limits, deny ...string) *env {
	t.Helper()
	base := t.TempDir()
	e := &env{t: t, base: base, root: filepath.Join(base, "root"), sentinel: filepath.Join(base, "sentinel")}
	must(t, os.Mkdir(e.root, 0o755))
	must(t, os.MkdirAll(filepath.Join(e.sentinel, "sub"), 0o755))
	e.write("../sentinel/secret", "SENTINEL")
	e.write("../sentinel/f", "SENTINEL")
	e.write("../sentinel/sub/deep", "SENTINEL")
	m, err := New(e.root, deny, l, testLogger(t))
	must(t, err)
	e.m = m
	return e
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// p is a path under the root (or, with "../", beside it) on the host.
func (e *env) p(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// write creates a file (and its parents) under the root.
func (e *env) write(rel, content string) {
	e.t.Helper()
	must(e.t, os.MkdirAll(filepath.Dir(e.p(rel)), 0o755))
	must(e.t, os.WriteFile(e.p(rel), []byte(content), 0o644))
}

func (e *env) mkdir(rel string) {
	e.t.Helper()
	must(e.t, os.MkdirAll(e.p(rel), 0o755))
}

func (e *env) symlink(target, rel string) {
	e.t.Helper()
	must(e.t, os.MkdirAll(filepath.Dir(e.p(rel)), 0o755))
	must(e.t, os.Symlink(target, e.p(rel)))
}

func (e *env) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.p(rel))
	must(e.t, err)
	return string(b)
}

func (e *env) exists(rel string) bool {
	_, err := os.Lstat(e.p(rel))
	return err == nil
}

// call sends a request through the wire decoding and encoding, as the
// agent would, and returns the decoded success reply or the error.
func (e *env) call(fn string, args map[string]any) (map[string]any, *wire.Error) {
	e.t.Helper()
	return callManager(e.t, e.m, fn, args)
}

func callManager(t testing.TB, m *Manager, fn string, args map[string]any) (map[string]any, *wire.Error) {
	t.Helper()
	msg := map[string]any{"func": fn}
	for k, v := range args {
		msg[k] = v
	}
	data, err := json.Marshal(msg)
	must(t, err)
	req, err := wire.DecodeRequest(data)
	must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := m.Handle(ctx, req)
	if err != nil {
		var we *wire.Error
		if !errors.As(err, &we) {
			t.Fatalf("%s: error %v (%T) is not a *wire.Error", fn, err, err)
		}
		var rep wire.ErrorReply
		must(t, json.Unmarshal(wire.EncodeError(err), &rep))
		if rep.Code != we.Code {
			t.Fatalf("%s: encoded code %q, want %q", fn, rep.Code, we.Code)
		}
		return nil, we
	}
	body, err := wire.EncodeSuccess(out)
	must(t, err)
	var rep map[string]any
	must(t, json.Unmarshal(body, &rep))
	if rep["status"] != wire.StatusSuccess {
		t.Fatalf("%s: reply %s", fn, body)
	}
	return rep, nil
}

// ok is call expecting success.
func (e *env) ok(fn string, args map[string]any) map[string]any {
	e.t.Helper()
	rep, werr := e.call(fn, args)
	if werr != nil {
		e.t.Fatalf("%s %v: %s: %s", fn, args, werr.Code, werr.Msg)
	}
	return rep
}

// fail is call expecting an error with code.
func (e *env) fail(code, fn string, args map[string]any) *wire.Error {
	e.t.Helper()
	rep, werr := e.call(fn, args)
	if werr == nil {
		e.t.Fatalf("%s %v: success %v, want %s", fn, args, rep, code)
	}
	if werr.Code != code {
		e.t.Fatalf("%s %v: code %s (%s), want %s", fn, args, werr.Code, werr.Msg, code)
	}
	return werr
}

// snapshot fingerprints a tree without following symlinks: names, types,
// modes, sizes, contents, link targets and modification times.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fi.Mode().String() + " " + fi.ModTime().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			desc += " " + hex.EncodeToString(sum[:])
		}
		out[p] = desc
		return nil
	})
	must(t, err)
	return out
}

// guardSentinel fails the test at cleanup if the sentinel changed.
func (e *env) guardSentinel() {
	before := snapshot(e.t, e.sentinel)
	e.t.Cleanup(func() {
		after := snapshot(e.t, e.sentinel)
		if len(after) != len(before) {
			e.t.Errorf("sentinel changed: %d entries, was %d", len(after), len(before))
		}
		for k, v := range before {
			if after[k] != v {
				e.t.Errorf("sentinel %s changed: %q, was %q", k, after[k], v)
			}
		}
	})
}

// entryNames lists the names in a fm_list or fm_search reply.
func entryNames(rep map[string]any, key, field string) []string {
	var out []string
	list, _ := rep[key].([]any)
	for _, x := range list {
		out = append(out, x.(map[string]any)[field].(string))
	}
	return out
}

// containsAll reports whether s holds every one of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// isCode reports whether err is a *wire.Error with code.
func isCode(err error, code string) bool {
	var we *wire.Error
	return errors.As(err, &we) && we.Code == code
}
