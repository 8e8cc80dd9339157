package world_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzClient_Query: any query and Host get the page, a redirect or a 400 —
// never a panic, and a redirect never leaves the request's host name.
func FuzzClient_Query(f *testing.F) {
	for _, s := range [][2]string{
		{"world=1", "example.org:8080"}, {"world=2", "[::1]:8080"}, {"", "h"}, {"world=", "h:1"},
		{"world=-0", "h:1"}, {"world=+2", "h:1"}, {"world=%00", "h:1"}, {"world=1&world=1", "h:1"},
		{"world=99999999999999999999", "h:1"}, {"world=0x2", "h:1"}, {";;&&==", "h:1"},
	} {
		f.Add(s[0], s[1])
	}
	c := newClient(f, 1)
	f.Fuzz(func(t *testing.T, query, host string) {
		r := httptest.NewRequest(http.MethodGet, "/client", nil)
		r.URL.RawQuery = query
		r.Host = host
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest:
		case http.StatusFound:
			loc, err := url.Parse(w.Header().Get("Location"))
			if err != nil {
				t.Fatalf("redirect to an unparsable %q: %v", w.Header().Get("Location"), err)
			}
			if loc.Host != "" && !strings.HasPrefix(loc.Path, "/client") {
				t.Fatalf("redirect %q leaves /client", loc)
			}
		default:
			t.Fatalf("query %q host %q: status %d", query, host, w.Code)
		}
	})
}
