package world_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	webworld "github.com/corrosion/corrosion/web/world"
)

func newClient(t testing.TB, world int) *webworld.Client {
	t.Helper()
	c, err := webworld.New(webworld.Options{World: world})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func get(t *testing.T, h http.Handler, host, target string) *http.Response {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Host = host
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func TestNew_RejectsBadWorld(t *testing.T) {
	for _, n := range []int{-9, -100, 247, 1000} {
		if _, err := webworld.New(webworld.Options{World: n}); !errors.Is(err, webworld.ErrOptions) || !strings.Contains(err.Error(), "World") {
			t.Errorf("World %d: err = %v, want ErrOptions naming World", n, err)
		}
	}
}

func TestClient_Routes(t *testing.T) {
	c := newClient(t, 1) // node 10, HTTP port 8080
	cases := []struct {
		name, host, target string
		code               int
		location           string // for redirects
		body               string // for 400s: a substring
	}{
		{"own world: the page", "example.org:8080", "/client?world=1", http.StatusOK, "", ""},
		{"no world: this world's own", "example.org:8080", "/client", http.StatusFound, "/client?world=1", ""},
		{"no world, other params kept", "example.org:8080", "/client?x=y", http.StatusFound, "/client?world=1&x=y", ""},
		{"world 2: node 11's port", "example.org:8080", "/client?world=2", http.StatusFound, "http://example.org:8081/client?world=2", ""},
		{"world 245: the last", "10.1.2.3:8080", "/client?world=245", http.StatusFound, "http://10.1.2.3:8324/client?world=245", ""},
		{"IPv6 host", "[::1]:8080", "/client?world=3", http.StatusFound, "http://[::1]:8082/client?world=3", ""},
		{"host without port", "example.org", "/client?world=2", http.StatusFound, "http://example.org:8081/client?world=2", ""},
		{"odd Host", "bad host:8080", "/client?world=2", http.StatusBadRequest, "", "is not a host name"},
		{"no Host", "", "/client?world=2", http.StatusBadRequest, "", "is not a host name"},
		{"not a number", "example.org:8080", "/client?world=abc", http.StatusBadRequest, "", `world="abc" is not a world number`},
		{"zero", "example.org:8080", "/client?world=0", http.StatusBadRequest, "", "from 1 to 245"},
		{"too big", "example.org:8080", "/client?world=246", http.StatusBadRequest, "", "from 1 to 245"},
		{"empty", "example.org:8080", "/client?world=", http.StatusBadRequest, "", "not a world number"},
		{"twice", "example.org:8080", "/client?world=1&world=2", http.StatusBadRequest, "", "given 2 times"},
		{"unknown path", "example.org:8080", "/client/nothing", http.StatusNotFound, "", ""},
		{"static folder: no listing", "example.org:8080", "/client/static/", http.StatusNotFound, "", ""},
		{"missing asset", "example.org:8080", "/client/static/nope.js", http.StatusNotFound, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := get(t, c, tc.host, tc.target)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.code {
				t.Fatalf("status %d, want %d; body %q", resp.StatusCode, tc.code, body)
			}
			if tc.location != "" {
				if got := resp.Header.Get("Location"); got != tc.location {
					t.Errorf("Location %q, want %q", got, tc.location)
				}
			}
			if tc.code == http.StatusBadRequest {
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
					t.Errorf("Content-Type %q, want text/plain", ct)
				}
				if !strings.Contains(string(body), tc.body) {
					t.Errorf("body %q does not say %q", body, tc.body)
				}
			}
		})
	}
}

// A development world on node 5 (world −4) serves its own page.
func TestClient_DevelopmentNodeServesItsOwnPage(t *testing.T) {
	c := newClient(t, -4)
	if resp := get(t, c, "127.0.0.1:8075", "/client"); resp.Header.Get("Location") != "/client?world=-4" {
		t.Fatalf("redirect to %q", resp.Header.Get("Location"))
	}
	if resp := get(t, c, "127.0.0.1:8075", "/client?world=-4"); resp.StatusCode != http.StatusOK {
		t.Fatalf("own page: status %d", resp.StatusCode)
	}
	if resp := get(t, c, "127.0.0.1:8075", "/client?world=-3"); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("another development world: status %d, want 400", resp.StatusCode)
	}
}

func TestClient_PageHeadersAndAssets(t *testing.T) {
	c := newClient(t, 2)
	resp := get(t, c, "127.0.0.1:8081", "/client?world=2")
	body, _ := io.ReadAll(resp.Body)
	if got := resp.Header.Get("Content-Security-Policy"); got != webworld.CSP {
		t.Errorf("CSP %q, want %q", got, webworld.CSP)
	}
	if !strings.Contains(webworld.CSP, "default-src 'self'") || strings.Contains(webworld.CSP, "unsafe-inline") {
		t.Errorf("CSP %q must be self-only without unsafe-inline", webworld.CSP)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("page Content-Type %q", ct)
	}
	page := string(body)
	for _, want := range []string{`data-world="2"`, `data-node="11"`, "World 2", `id="login-form"`, `id="map"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, bad := range []string{"<script>", " style=", " onclick=", " onload="} {
		if strings.Contains(page, bad) {
			t.Errorf("page has inline code %q, which the CSP refuses", bad)
		}
	}
	assets := []struct{ name, ctype string }{
		{"world.css", "text/css; charset=utf-8"},
		{"icon.svg", "image/svg+xml"},
	}
	for _, s := range webworld.Scripts {
		assets = append(assets, struct{ name, ctype string }{s, "text/javascript; charset=utf-8"})
	}
	for _, a := range assets {
		url := webworld.Asset(a.name)
		if !strings.Contains(page, url) {
			t.Errorf("page does not link %s as %s", a.name, url)
		}
		if !strings.Contains(url, "?v=") || len(url) < len(webworld.StaticPrefix+a.name+"?v=")+12 {
			t.Errorf("asset URL %q has no content hash", url)
		}
		r := get(t, c, "127.0.0.1:8081", url)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", url, r.StatusCode)
		}
		if ct := r.Header.Get("Content-Type"); ct != a.ctype {
			t.Errorf("%s: Content-Type %q, want %q", a.name, ct, a.ctype)
		}
		if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=31536000") || !strings.Contains(cc, "immutable") {
			t.Errorf("%s: Cache-Control %q, want a year, immutable", a.name, cc)
		}
	}
}

// The page loads every script in static/, each once, in Scripts' order
// (each script uses the parts the earlier ones added), and no static file
// grows past STYLE.md's 800 lines.
func TestClient_ScriptsAllLinkedInOrder(t *testing.T) {
	resp := get(t, newClient(t, 1), "127.0.0.1:8080", "/client?world=1")
	body, _ := io.ReadAll(resp.Body)
	page := string(body)
	at := -1
	for _, s := range webworld.Scripts {
		tag := `<script src="` + webworld.Asset(s) + `" defer></script>`
		i := strings.Index(page, tag)
		if i < 0 || strings.Count(page, tag) != 1 {
			t.Fatalf("page does not link %s once as %s", s, tag)
		}
		if i < at {
			t.Errorf("%s is linked before the script listed ahead of it", s)
		}
		at = i
	}
	if n := strings.Count(page, "<script "); n != len(webworld.Scripts) {
		t.Errorf("page has %d scripts, Scripts lists %d", n, len(webworld.Scripts))
	}
	files, err := os.ReadDir("static")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f.Name(), ".js") && !slices.Contains(webworld.Scripts, f.Name()) {
			t.Errorf("static/%s is not in Scripts: the page would never load it", f.Name())
		}
		b, err := os.ReadFile(filepath.Join("static", f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n > maxLines {
			t.Errorf("static/%s has %d lines, more than %d", f.Name(), n, maxLines)
		}
	}
}

// maxLines is STYLE.md's size limit for a file.
const maxLines = 800
