package server

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCompress(t *testing.T) {
	page := strings.Repeat("<tr><td>host</td></tr>", 500)
	handler := func(ct string, status int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if ct != "" {
				w.Header().Set("Content-Type", ct)
			}
			w.WriteHeader(status)
			_, _ = io.WriteString(w, page)
			_ = http.NewResponseController(w).Flush()
		})
	}
	cases := []struct {
		name, ct, accept, acceptEnc string
		status                      int
		want                        bool
	}{
		{"html page", "text/html; charset=utf-8", "", "gzip, deflate, br", 200, true},
		{"error page", "text/html; charset=utf-8", "", "gzip", 404, true},
		{"json", "application/json", "", "gzip", 200, true},
		{"client without gzip", "text/html", "", "", 200, false},
		{"gzip refused", "text/html", "", "gzip;q=0", 200, false},
		{"live stream", "text/event-stream", "text/event-stream", "gzip", 200, false},
		{"image", "image/png", "", "gzip", 200, false},
		{"partial content", "text/plain", "", "gzip", 206, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			if c.acceptEnc != "" {
				req.Header.Set("Accept-Encoding", c.acceptEnc)
			}
			if c.accept != "" {
				req.Header.Set("Accept", c.accept)
			}
			rec := httptest.NewRecorder()
			compress(handler(c.ct, c.status)).ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d", rec.Code, c.status)
			}
			gz := rec.Header().Get("Content-Encoding") == "gzip"
			if gz != c.want {
				t.Fatalf("compressed = %v, want %v", gz, c.want)
			}
			body := rec.Body.String()
			if gz {
				if n := rec.Body.Len(); n >= len(page)/4 || rec.Header().Get("Content-Length") != "" {
					t.Errorf("compressed to %d of %d bytes, Content-Length %q", n, len(page), rec.Header().Get("Content-Length"))
				}
				zr, err := gzip.NewReader(rec.Body)
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(zr)
				if err != nil {
					t.Fatal(err)
				}
				body = string(b)
			}
			if body != page {
				t.Errorf("body changed (%d bytes, want %d)", len(body), len(page))
			}
		})
	}
}
