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
	s := New(testFS("body{}"), "static", "/static/")
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
	changed := New(testFS("body{color:red}"), "static", "/client/static/")
	if a, b := s.URL("app.css"), changed.URL("app.css"); a[len("/static/"):] == b[len("/client/static/"):] {
		t.Fatalf("changed content kept its URL %q", b)
	}
}

// The handler serves the folder's files (with or without the hash query)
// as immutable and nosniff, and never lists a folder or reaches outside it.
func TestSet_Handler(t *testing.T) {
	srv := httptest.NewServer(New(testFS("body{}"), "static", "/static/").Handler())
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
	New(testFS(""), "../static", "/static/")
}
