package files_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/files"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
)

const (
	licA  = "lic-a"
	licB  = "lic-b"
	fbase = "/hosts/" + licA + "/instances/game/files"
)

type env struct {
	p     *paneltest.Panel
	root  string
	op    *paneltest.Client
	view  *paneltest.Client
	other *paneltest.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{}
	e.p = paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		return []httpx.Feature{files.New(server.TabDeps{NATS: d.NC, Logger: d.Logger})}
	}})
	e.p.AddLicense(t, licA)
	e.p.AddLicense(t, licB)
	a := paneltest.StartAgent(t, e.p.NATSURL, licA, paneltest.AgentInstance{ID: "game", Unmanaged: true})
	e.root = a.Root("game")
	e.op = e.p.Client(t, "olga", e.p.AddUser(t, "olga", auth.RoleOperator, licA))
	e.view = e.p.Client(t, "vic", e.p.AddUser(t, "vic", auth.RoleViewer, licA))
	e.other = e.p.Client(t, "bert", e.p.AddUser(t, "bert", auth.RoleOperator, licB))
	return e
}

func (e *env) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(e.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *env) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("read %s from the instance root: %v", rel, err)
	}
	return string(b)
}

func (e *env) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(e.root, filepath.FromSlash(rel)))
	return err == nil
}

func mustStatus(t *testing.T, what string, status int, body string, want int) {
	t.Helper()
	if status != want {
		t.Fatalf("%s: status %d, want %d: %.300s", what, status, want, body)
	}
}

func TestFiles_BrowseViewAndSave(t *testing.T) {
	e := newEnv(t)
	e.write(t, "cfg/server.cfg", "hostname old\nmaxplayers 10\n")
	e.write(t, "data.bin", "\x00\x01\x02binary")
	status, body := e.op.Get(fbase)
	mustStatus(t, "list root", status, body, http.StatusOK)
	for _, want := range []string{"cfg/", "data.bin", "9 B", "New folder", "Upload"} {
		if !strings.Contains(body, want) {
			t.Fatalf("root listing lacks %q", want)
		}
	}
	status, body = e.op.Get(fbase + "?path=cfg")
	mustStatus(t, "list cfg", status, body, http.StatusOK)
	if !strings.Contains(body, "server.cfg") || !strings.Contains(body, "27 B") {
		t.Fatalf("cfg listing: %s", body)
	}
	status, body = e.op.Get(fbase + "/view?path=cfg/server.cfg")
	mustStatus(t, "view", status, body, http.StatusOK)
	if !strings.Contains(body, "hostname old") || !strings.Contains(body, `name="eol" value="lf"`) {
		t.Fatalf("editor lacks the text: %s", body)
	}
	status, body = e.op.Get(fbase + "/view?path=data.bin")
	mustStatus(t, "view binary", status, body, http.StatusOK)
	if !strings.Contains(body, "not a text file") {
		t.Fatalf("binary file shown as text")
	}
	// A browser sends a textarea's lines with CRLF; an LF file stays LF.
	req := e.op.NewPost(fbase+"/save", url.Values{"path": {"cfg/server.cfg"}, "eol": {"lf"}, "content": {"hostname new\r\nmaxplayers 20\r\n"}})
	req.Header.Set("HX-Request", "true")
	resp := e.op.Do(req)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mustStatus(t, "save", resp.StatusCode, string(b), http.StatusOK)
	if !strings.Contains(string(b), "Saved 27 B") {
		t.Fatalf("save answer: %q", b)
	}
	if got := e.read(t, "cfg/server.cfg"); got != "hostname new\nmaxplayers 20\n" {
		t.Fatalf("on disk after save: %q", got)
	}
	if rows := auditRows(t, e.p, "files.save"); !slices.Equal(rows, []string{"ok olga /cfg/server.cfg"}) {
		t.Fatalf("save audit rows: %q", rows)
	}
	// A path naming a file in the listing URL goes to its view.
	status, _ = e.op.Get(fbase + "?path=cfg/server.cfg")
	mustStatus(t, "list a file", status, "", http.StatusSeeOther)
}

func TestFiles_Operations(t *testing.T) {
	e := newEnv(t)
	e.write(t, "maps/a.txt", "A")
	e.write(t, "maps/b.txt", "B")
	post := func(op string, form url.Values, want int) string {
		t.Helper()
		req := e.op.NewPost(fbase+"/"+op, form)
		req.Header.Set("HX-Request", "true")
		resp := e.op.Do(req)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		mustStatus(t, op, resp.StatusCode, string(b), want)
		return resp.Header.Get("HX-Redirect")
	}
	if to := post("mkdir", url.Values{"dir": {""}, "name": {"backups"}}, http.StatusNoContent); !strings.Contains(to, "done=created") {
		t.Fatalf("mkdir redirects to %q", to)
	}
	if !e.exists("backups") {
		t.Fatal("mkdir made no folder")
	}
	post("mkdir", url.Values{"dir": {""}, "name": {"backups"}}, http.StatusConflict)
	post("rename", url.Values{"from": {"maps/a.txt"}, "to": {"alpha.txt"}}, http.StatusNoContent)
	if e.exists("maps/a.txt") || e.read(t, "maps/alpha.txt") != "A" {
		t.Fatal("rename did not move maps/a.txt to maps/alpha.txt")
	}
	post("archive", url.Values{"paths": {"maps"}, "to": {"backups/maps.zip"}}, http.StatusNoContent)
	zr, err := zip.OpenReader(filepath.Join(e.root, "backups", "maps.zip"))
	if err != nil {
		t.Fatalf("archive: %v", err)
	}
	zr.Close()
	post("extract", url.Values{"path": {"backups/maps.zip"}, "to": {"restored"}}, http.StatusNoContent)
	if e.read(t, "backups/restored/maps/b.txt") != "B" {
		t.Fatal("extract did not restore maps/b.txt")
	}
	post("delete", url.Values{"path": {"maps"}}, http.StatusNoContent)
	if e.exists("maps") {
		t.Fatal("delete left maps")
	}
	post("delete", url.Values{"path": {"maps"}}, http.StatusNotFound)
	for _, action := range []string{"files.mkdir", "files.rename", "files.archive", "files.extract", "files.delete"} {
		if rows := auditRows(t, e.p, action); len(rows) == 0 || !strings.HasPrefix(rows[0], "ok olga /") {
			t.Fatalf("%s audit rows: %q", action, rows)
		}
	}
	// Without htmx: a plain form answered with a redirect to the folder.
	status, _ := e.op.PostForm(fbase+"/mkdir", url.Values{"dir": {"backups"}, "name": {"old"}})
	mustStatus(t, "plain mkdir", status, "", http.StatusSeeOther)
}

func TestFiles_UploadAndDownload(t *testing.T) {
	e := newEnv(t)
	big := make([]byte, 700<<10) // several download chunks
	_, _ = rand.Read(big)
	status, body := upload(t, e, "", "world.dat", big, false)
	mustStatus(t, "upload", status, body, http.StatusSeeOther)
	if got := e.read(t, "world.dat"); got != string(big) {
		t.Fatalf("uploaded file on disk has %d bytes, want %d equal", len(got), len(big))
	}
	status, body = upload(t, e, "", "world.dat", []byte("x"), false)
	mustStatus(t, "upload over an existing file", status, body, http.StatusConflict)
	if !strings.Contains(body, "already exists") {
		t.Fatalf("refusal: %q", body)
	}
	status, body = upload(t, e, "", "world.dat", []byte("x"), true)
	mustStatus(t, "upload with replace", status, body, http.StatusSeeOther)
	e.write(t, "world.dat", string(big))
	resp := e.op.Do(mustGet(t, e.p.URL+fbase+"/download?path=world.dat"))
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mustStatus(t, "download", resp.StatusCode, "", http.StatusOK)
	if !bytes.Equal(got, big) {
		t.Fatalf("downloaded %d bytes, want the %d on disk", len(got), len(big))
	}
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename=world.dat` {
		t.Fatalf("Content-Disposition %q", cd)
	}
	e.write(t, "notes.txt", "hi")
	resp = e.op.Do(mustGet(t, e.p.URL+fbase+"/download?path=notes.txt"))
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("notes.txt downloaded as %q", ct)
	}
	// A name that is not UTF-8 is refused in words, not saved under
	// \uFFFD (JSON's replacement on the way to the agent); a UTF-8 one is
	// kept as it is.
	status, body = upload(t, e, "", "\xff.txt", []byte("x"), true)
	mustStatus(t, "upload named \\xff.txt", status, body, http.StatusBadRequest)
	if !strings.Contains(body, "not UTF-8 text") || e.exists("\uFFFD.txt") || e.exists("\xff.txt") {
		t.Fatalf("upload named \\xff.txt: %q, written %v", body, e.exists("\uFFFD.txt") || e.exists("\xff.txt"))
	}
	status, body = upload(t, e, "", "été.txt", []byte("x"), false)
	mustStatus(t, "upload named été.txt", status, body, http.StatusSeeOther)
	if got := e.read(t, "été.txt"); got != "x" {
		t.Fatalf("été.txt holds %q", got)
	}
	tooBig := make([]byte, files.UploadMax(e.p.NC.MaxPayload())+1)
	status, body = upload(t, e, "", "huge.bin", tooBig, false)
	mustStatus(t, "upload over the cap", status, body, http.StatusRequestEntityTooLarge)
	if e.exists("huge.bin") {
		t.Fatal("an upload over the cap was written")
	}
}

func TestFiles_BadInputAndRights(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.txt", "A")
	cases := []struct {
		name, op string
		form     url.Values
		words    string
	}{
		{"dotdot", "delete", url.Values{"path": {"../etc/passwd"}}, "cannot go up"},
		{"root", "delete", url.Values{"path": {"/"}}, "not the root"},
		{"nul", "save", url.Values{"path": {"a\x00b"}, "content": {"x"}}, "NUL"},
		{"backslash", "rename", url.Values{"from": {"a.txt"}, "to": {"x\\y"}}, "use /"},
		{"bad archive name", "archive", url.Values{"paths": {"a.txt"}, "to": {"a.rar"}}, ".zip"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.op.PostForm(fbase+"/"+tc.op, tc.form)
			if status != http.StatusBadRequest || !strings.Contains(body, tc.words) {
				t.Fatalf("status %d %q, want 400 with %q", status, body, tc.words)
			}
		})
	}
	if status, body := e.op.Get(fbase + "?path=../x"); status != http.StatusBadRequest {
		t.Fatalf("listing ../x: %d %q", status, body)
	}
	status, body := e.view.PostForm(fbase+"/save", url.Values{"path": {"a.txt"}, "content": {"viewer"}})
	mustStatus(t, "viewer save", status, body, http.StatusForbidden)
	status, body = e.view.Get(fbase + "/view?path=a.txt")
	mustStatus(t, "viewer view", status, body, http.StatusOK)
	if !strings.Contains(body, "readonly") || strings.Contains(body, `name="content"`) {
		t.Fatal("a viewer got an editable editor")
	}
	if e.read(t, "a.txt") != "A" {
		t.Fatal("a viewer's save changed the file")
	}
	for _, path := range []string{fbase, fbase + "/view?path=a.txt", fbase + "/download?path=a.txt"} {
		if status, _ := e.other.Get(path); status != http.StatusForbidden {
			t.Fatalf("other license GET %s: %d, want 403", path, status)
		}
	}
	status, body = e.other.PostForm(fbase+"/delete", url.Values{"path": {"a.txt"}})
	mustStatus(t, "other license delete", status, body, http.StatusForbidden)
	if !e.exists("a.txt") {
		t.Fatal("another license's operator deleted a file")
	}
}

func upload(t *testing.T, e *env, dir, name string, data []byte, replace bool) (int, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("dir", dir)
	if replace {
		_ = mw.WriteField("replace", "1")
	}
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write(data)
	_ = mw.Close()
	req, err := http.NewRequest(http.MethodPost, e.p.URL+fbase+"/upload", &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp := e.op.Do(req)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func mustGet(t *testing.T, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func auditRows(t *testing.T, p *paneltest.Panel, action string) []string {
	t.Helper()
	rows, err := p.Store.Pool().Query(context.Background(),
		`SELECT result || ' ' || user_name || ' ' || target FROM panel_audit WHERE action = $1 ORDER BY id`, action)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
