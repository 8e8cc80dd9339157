package install

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/steam"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/internal/testbin"
)

// fakeSteam is tools/fakesteamcmd with a depot of its own.
type fakeSteam struct {
	bin, home, depot string
}

func newFakeSteam(t testing.TB) *fakeSteam {
	t.Helper()
	return &fakeSteam{bin: testbin.Build(t, "./tools/fakesteamcmd"), home: t.TempDir(), depot: t.TempDir()}
}

// build adds a build of app on branch to the depot.
func (f *fakeSteam) build(t testing.TB, app, branch, build string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		writeFile(t, filepath.Join(f.depot, app, branch, build, name), body)
	}
}

// runner is a Runner on the fake, mode set for its first failRuns runs (0:
// every run).
func (f *fakeSteam) runner(t testing.TB, mode string, failRuns int) *steam.Runner {
	env := append(testbin.Env(), "FAKESTEAMCMD_HOME="+f.home, "FAKESTEAMCMD_DEPOT="+f.depot, "FAKESTEAMCMD_MODE="+mode)
	if failRuns > 0 {
		env = append(env, "FAKESTEAMCMD_FAIL_RUNS="+strconv.Itoa(failRuns))
	}
	return &steam.Runner{Path: f.bin, Home: f.home, Env: env, Limit: time.Minute, Attempts: 3, Log: testLogger(t),
		Backoff: func(int) time.Duration { return time.Millisecond }}
}

// runs is how many times the fake ran.
func (f *fakeSteam) runs(t testing.TB) int {
	b, err := os.ReadFile(filepath.Join(f.home, "fakesteamcmd.runs"))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(string(b))
	return n
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// releases is a local HTTP server for downloads and GitHub's API.
type releases struct {
	srv   *httptest.Server
	mu    sync.Mutex
	files map[string][]byte       // path -> body; guarded by mu
	rels  map[string]releaseReply // "owner/name" -> latest; guarded by mu
	gets  map[string]int          // path -> GETs; guarded by mu
}

type releaseReply struct {
	Tag       string
	Assets    map[string][]byte // name -> body
	Digest    bool              // publish each asset's sha256 digest
	BadDigest bool              // publish a digest that does not match
}

func newReleases(t testing.TB) *releases {
	t.Helper()
	r := &releases{files: map[string][]byte{}, rels: map[string]releaseReply{}, gets: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve)) // on 127.0.0.1
	t.Cleanup(r.srv.Close)
	return r
}

func (r *releases) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gets[req.URL.Path]++
	if repo, ok := strings.CutSuffix(strings.TrimPrefix(req.URL.Path, "/api/repos/"), "/releases/latest"); ok {
		rel, ok := r.rels[repo]
		if !ok {
			http.NotFound(w, req)
			return
		}
		out := release{TagName: rel.Tag}
		names := make([]string, 0, len(rel.Assets))
		for n := range rel.Assets {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := "/dl/" + repo + "/" + n
			r.files[p] = rel.Assets[n]
			a := releaseAsset{Name: n, DownloadURL: r.srv.URL + p}
			switch {
			case rel.Digest:
				a.Digest = "sha256:" + sum(rel.Assets[n])
			case rel.BadDigest:
				a.Digest = "sha256:" + sum([]byte("something else"))
			}
			out.Assets = append(out.Assets, a)
		}
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	b, ok := r.files[req.URL.Path]
	if !ok {
		http.NotFound(w, req)
		return
	}
	_, _ = w.Write(b)
}

// file serves body at p and returns its URL.
func (r *releases) file(p string, body []byte) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[p] = body
	return r.srv.URL + p
}

func (r *releases) release(repo string, rel releaseReply) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rels[repo] = rel
}

func (r *releases) got(p string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gets[p]
}

// progress collects a task's lines.
type progress struct {
	mu sync.Mutex
	l  []string // guarded by mu
}

func (p *progress) add(s string) { p.mu.Lock(); p.l = append(p.l, s); p.mu.Unlock() }

func (p *progress) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.l, "\n")
}

func (p *progress) has(sub string) bool { return strings.Contains(p.text(), sub) }

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func zipOf(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedNames(files) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tarGzOf(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range sortedNames(files) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func writeFile(t testing.TB, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tree lists the files under root (slash paths -> content), for "nothing
// changed" checks.
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rustSpec renders the built-in rust template with framework fw.
func rustSpec(t testing.TB, fw string) template.Spec {
	t.Helper()
	data, ok := template.BuiltinSource("rust")
	if !ok {
		t.Fatal("no built-in rust template")
	}
	tpl, err := template.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := template.Render(&tpl, map[string]string{"FRAMEWORK": fw, "RCON_PASSWORD": "rcon-secret-1"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
