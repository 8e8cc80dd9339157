package webasset

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
)

func testFS(css string) fstest.MapFS {
	return fstest.MapFS{
		"static/app.css":     {Data: []byte(css)},
		"static/js/htmx.js":  {Data: []byte("htmx();")},
		"static/js/index.js": {Data: []byte("index();")},
		"secret.txt":         {Data: []byte("outside the folder")},
	}
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// URLs carry the first 12 hex digits of the file's SHA-256 under the
// prefix, for files at any depth; they change with the content.
func TestSet_URL_ContentHash(t *testing.T) {
	s := New(testFS("body{}"), "/static/", "static")
	cases := []struct{ name, want string }{
		{"app.css", "/static/app.css?v=" + shortHash("body{}")},
		{"js/htmx.js", "/static/js/htmx.js?v=" + shortHash("htmx();")},
		{"missing.css", "/static/missing.css?v="},
		{"secret.txt", "/static/secret.txt?v="}, // outside the folder
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := s.URL(c.name); got != c.want {
				t.Fatalf("URL(%q) = %q, want %q", c.name, got, c.want)
			}
		})
	}
	changed := New(testFS("body{color:red}"), "/client/static/", "static")
	if a, b := s.URL("app.css"), changed.URL("app.css"); a[len("/static/"):] == b[len("/client/static/"):] {
		t.Fatalf("changed content kept its URL %q", b)
	}
}

// The handler serves the folder's files (with or without the hash query)
// as immutable and nosniff, and never lists a folder or reaches outside it.
func TestSet_Handler(t *testing.T) {
	srv := httptest.NewServer(New(testFS("body{}"), "/static/", "static").Handler())
	defer srv.Close()
	cases := []struct {
		name, path string
		code       int
		body       string
	}{
		{"file", "/static/app.css", http.StatusOK, "body{}"},
		{"file with hash", "/static/app.css?v=" + shortHash("body{}"), http.StatusOK, "body{}"},
		{"nested file", "/static/js/htmx.js", http.StatusOK, "htmx();"},
		{"root listing", "/static/", http.StatusNotFound, ""},
		{"folder listing", "/static/js/", http.StatusNotFound, ""},
		{"folder without slash", "/static/js", http.StatusNotFound, ""},
		{"missing", "/static/missing.css", http.StatusNotFound, ""},
		{"outside the folder", "/static/../secret.txt", http.StatusNotFound, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.code {
				t.Fatalf("GET %s = %d %q, want %d", c.path, resp.StatusCode, body, c.code)
			}
			if c.code != http.StatusOK {
				return
			}
			if string(body) != c.body {
				t.Fatalf("GET %s body %q, want %q", c.path, body, c.body)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != CacheControl {
				t.Fatalf("Cache-Control %q, want %q", cc, CacheControl)
			}
			if ns := resp.Header.Get("X-Content-Type-Options"); ns != "nosniff" {
				t.Fatalf("X-Content-Type-Options %q, want nosniff", ns)
			}
		})
	}
}

func TestNew_PanicsOnInvalidDir(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New with an invalid folder did not panic")
		}
	}()
	New(testFS(""), "/static/", "../static")
}

// A Set of two folders serves and hashes the files of both under one
// prefix (a component's own assets beside the third-party ones it vendors
// in a folder of their own); where both hold a name, the first folder's
// file is the one served and hashed.
func TestSet_Folders(t *testing.T) {
	fsys := fstest.MapFS{
		"static/app.css":          {Data: []byte("body{}")},
		"static/same.js":          {Data: []byte("ours();")},
		"third_party/htmx.min.js": {Data: []byte("htmx();")},
		"third_party/same.js":     {Data: []byte("theirs();")},
		"third_party/ext/sse.js":  {Data: []byte("sse();")},
	}
	s := New(fsys, "/static/", "static", "third_party")
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	cases := []struct{ name, body string }{
		{"app.css", "body{}"},
		{"htmx.min.js", "htmx();"},
		{"ext/sse.js", "sse();"},
		{"same.js", "ours();"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := s.URL(c.name), "/static/"+c.name+"?v="+shortHash(c.body); got != want {
				t.Fatalf("URL(%q) = %q, want %q", c.name, got, want)
			}
			resp, err := http.Get(srv.URL + "/static/" + c.name)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || string(body) != c.body {
				t.Fatalf("GET %s = %d %q, want 200 %q", c.name, resp.StatusCode, body, c.body)
			}
		})
	}
	resp, err := http.Get(srv.URL + "/static/missing.js")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET a name in neither folder = %d, want 404", resp.StatusCode)
	}
}
