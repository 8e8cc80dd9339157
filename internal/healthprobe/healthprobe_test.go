package healthprobe

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ready", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /down", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"ready":false,"reason":"tick not running"}` + "\nsecond line\n"))
	})
	mux.HandleFunc("GET /moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ready", http.StatusFound) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/ready"
	_ = l.Close()

	cases := []struct {
		name, url   string
		unhealthy   bool
		wantInError string
	}{
		{"ready", srv.URL + "/ready", false, ""},
		{"503 quotes the first line", srv.URL + "/down", true, `503 Service Unavailable {"ready":false,"reason":"tick not running"}`},
		{"404", srv.URL + "/nope", true, "404"},
		{"redirect is not followed", srv.URL + "/moved", true, "302"},
		{"nothing listening", closed, true, closed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check(context.Background(), c.url)
			if !c.unhealthy {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnhealthy) || !strings.Contains(err.Error(), c.wantInError) {
				t.Fatalf("Check: %v; want ErrUnhealthy naming %q", err, c.wantInError)
			}
			if strings.Contains(err.Error(), "second line") {
				t.Fatalf("Check quoted more than the first line: %v", err)
			}
		})
	}
}

func TestCheck_BadURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:8080/ready", "ftp://127.0.0.1/x", "http:///ready", "http://[::1"} {
		err := Check(context.Background(), u)
		if err == nil || errors.Is(err, ErrUnhealthy) || !strings.Contains(err.Error(), "is not an http") {
			t.Errorf("Check(%q): %v; want a bad-URL error", u, err)
		}
	}
}

func TestLocalURL(t *testing.T) {
	cases := []struct{ listen, want string }{
		{"0.0.0.0:7780", "http://127.0.0.1:7780/healthz"},
		{":7780", "http://127.0.0.1:7780/healthz"},
		{"[::]:7780", "http://127.0.0.1:7780/healthz"},
		{"127.0.0.1:7780", "http://127.0.0.1:7780/healthz"},
		{"10.1.2.3:8080", "http://10.1.2.3:8080/healthz"},
		{"[::1]:8080", "http://[::1]:8080/healthz"},
		{"panel.local:80", "http://panel.local:80/healthz"},
	}
	for _, c := range cases {
		got, err := LocalURL(c.listen, "/healthz")
		if err != nil || got != c.want {
			t.Errorf("LocalURL(%q) = %q, %v; want %q", c.listen, got, err, c.want)
		}
	}
	if _, err := LocalURL("7780", "/healthz"); err == nil || !strings.Contains(err.Error(), `"7780" is not host:port`) {
		t.Errorf("LocalURL(7780): %v", err)
	}
}
