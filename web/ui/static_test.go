package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Every asset the layout links, the project's own (static) and the vendored
// third-party ones (third_party), is served at /static/<name> with its
// content hash: moving vendored files apart in the tree changes no URL.
func TestStatic_ServesOwnAndVendoredAssets(t *testing.T) {
	srv := httptest.NewServer(Static())
	defer srv.Close()
	for _, name := range []string{"panel.css", "panel.js", "console.js", "favicon.svg",
		"htmx-2.0.11.min.js", "htmx-ext-sse-2.2.4.js", "htmx-LICENSE"} {
		t.Run(name, func(t *testing.T) {
			u := Asset(name)
			if !strings.HasPrefix(u, StaticPrefix+name+"?v=") || strings.HasSuffix(u, "?v=") {
				t.Fatalf("Asset(%q) = %q, want %s%s?v=<hash>", name, u, StaticPrefix, name)
			}
			resp, err := http.Get(srv.URL + u)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || len(body) == 0 {
				t.Fatalf("GET %s = %d, %d bytes", u, resp.StatusCode, len(body))
			}
		})
	}
}
