package world_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/browsertest"
	webworld "github.com/corrosion/corrosion/web/world"
)

// The page's name37 against the protocol doc's values, in chromium.
func TestPage_Name37MatchesTheDoc(t *testing.T) {
	srv := httptest.NewServer(newClient(t, 1))
	defer srv.Close()
	b := browsertest.New(t)
	tab := b.Tab(800, 600)
	browsertest.Run(t, tab, 20*time.Second, "open the page", chromedp.Navigate(srv.URL+webworld.PagePath+"?world=1"),
		chromedp.WaitVisible("#login-form"))
	cases := []struct {
		name, value, shown string
	}{
		{"zezima", "1813643468", "Zezima"},
		{"a", "1", "A"},
		{"ab", "39", "Ab"},
		{"a b", "1371", "A B"},
		{"a_b", "1371", "A B"},
		{"bob", "3295", "Bob"},
		{"iron_man", "901636385016", "Iron Man"},
		{"1abc", "1419730", "1abc"},
		{"ZeZiMa", "1813643468", "Zezima"},
		{"999999999999", "6582952005840035280", "999999999999"},
	}
	for _, tc := range cases {
		var got []string
		expr := fmt.Sprintf(`(() => { const w = window.corrosionWorld, v = w.encode37(%q);
			return [String(v), w.display(w.decode37(v))]; })()`, tc.name)
		browsertest.Run(t, tab, 20*time.Second, "name37 of "+tc.name, chromedp.Evaluate(expr, &got))
		if len(got) != 2 || got[0] != tc.value || got[1] != tc.shown {
			t.Errorf("%q: page says %v, doc says %s shown as %q", tc.name, got, tc.value, tc.shown)
		}
	}
	var invalid []bool
	browsertest.Run(t, tab, 20*time.Second, "invalid names and values", chromedp.Evaluate(`(() => {
		const w = window.corrosionWorld;
		return [w.encode37('') === null, w.encode37(' bob') === null, w.encode37('bob_') === null,
			w.encode37('thirteenchars') === null, w.encode37('bo-b') === null,
			w.decode37(0n) === null, w.decode37(37n) === null, w.decode37(6582952005840035281n) === null];
	})()`, &invalid))
	for i, ok := range invalid {
		if !ok {
			t.Errorf("invalid case %d accepted", i)
		}
	}
	if errs := b.Errors(); len(errs) != 0 {
		t.Fatalf("page errors: %v", errs)
	}
}

// A page whose world does not answer on /ws says so in words, and the
// login form stays usable.
func TestPage_NoWorldSaysSo(t *testing.T) {
	srv := httptest.NewServer(newClient(t, 3))
	defer srv.Close()
	b := browsertest.New(t)
	tab := b.Tab(800, 600)
	var msg string
	browsertest.Run(t, tab, 20*time.Second, "log in without a world",
		chromedp.Navigate(srv.URL+webworld.PagePath+"?world=3"), chromedp.WaitVisible("#login-form"),
		chromedp.SendKeys("#login-name", "zezima"), chromedp.SendKeys("#login-pass", "secret"), chromedp.Click("#login-go"),
		chromedp.Poll(`document.getElementById('login-error').textContent !== ''`, nil),
		chromedp.Text("#login-error", &msg), chromedp.WaitEnabled("#login-go"))
	if !strings.Contains(msg, "Could not reach World 3") {
		t.Fatalf("login error %q", msg)
	}
	var bad string
	browsertest.Run(t, tab, 20*time.Second, "a bad name is refused before connecting",
		chromedp.Evaluate(`document.getElementById('login-name').value = ''`, nil),
		chromedp.SendKeys("#login-name", "_bad"), chromedp.SendKeys("#login-pass", "secret"), chromedp.Click("#login-go"),
		chromedp.Poll(`document.getElementById('login-error').textContent.includes('letters')`, nil),
		chromedp.Text("#login-error", &bad))
	if !strings.Contains(bad, "1–12 letters") {
		t.Fatalf("bad name error %q", bad)
	}
	// The world refuses passwords over 20 bytes with code 3, "Invalid
	// username or password": the page says the real reason first.
	var long string
	browsertest.Run(t, tab, 20*time.Second, "a password over 20 bytes is refused before connecting",
		chromedp.Evaluate(`document.getElementById('login-name').value = 'zezima';
			document.getElementById('login-pass').value = 'x'.repeat(21)`, nil),
		chromedp.Click("#login-go"),
		chromedp.Poll(`document.getElementById('login-error').textContent.includes('password')`, nil),
		chromedp.Text("#login-error", &long))
	if !strings.Contains(long, "1–20 bytes") {
		t.Fatalf("long password error %q", long)
	}
	browsertest.Screenshot(t, tab, "world-client-no-world")
	if errs := b.Errors(); len(errs) != 0 {
		t.Fatalf("page errors: %v", errs)
	}
}
