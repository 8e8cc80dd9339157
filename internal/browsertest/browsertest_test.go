package browsertest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/internal/poll"
)

func TestBrowser_OpensPageAndRecordsErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><title>hi</title><h1 id="h">hello</h1><script>throw new Error("boom")</script>`))
	}))
	defer srv.Close()
	b := browsertest.New(t)
	tab := b.Tab(800, 600)
	var text string
	browsertest.Run(t, tab, 20*time.Second, "open page", chromedp.Navigate(srv.URL), chromedp.Text("#h", &text))
	if text != "hello" {
		t.Fatalf("text = %q", text)
	}
	poll.True(t, 5*time.Second, "the thrown error is recorded", func() bool { return len(b.Errors()) == 1 })
	browsertest.Screenshot(t, tab, "browsertest-selftest")
}
