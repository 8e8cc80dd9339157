package paneltest

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/panel/auth"
)

// Client is an HTTP client of a test panel with a cookie jar, behaving
// like a browser on the panel's origin: it sends Origin = the panel's URL
// on every non-GET request (unless the request sets its own) and does not
// follow redirects (tests see the 303s).
type Client struct {
	t    testing.TB   // immutable
	base string       // the panel's URL; immutable
	hc   *http.Client // immutable; its jar holds the session
}

// Client logs name in with password and returns the logged-in client; a
// refused login fails the test.
func (p *Panel) Client(t testing.TB, name, password string) *Client {
	t.Helper()
	c := p.AnonClient(t)
	status, body := c.PostForm("/login", url.Values{"name": {name}, "password": {password}})
	if status != http.StatusSeeOther || !c.hasSession() {
		t.Fatalf("paneltest: login as %s: status %d, want 303 with a session cookie:\n%s", name, status, body)
	}
	return c
}

// AnonClient is a client nobody has logged in on.
func (p *Panel) AnonClient(t testing.TB) *Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Client{t: t, base: p.URL, hc: hc}
}

// HTTP is the underlying client (its jar holds the session).
func (c *Client) HTTP() *http.Client { return c.hc }

func (c *Client) hasSession() bool {
	u, _ := url.Parse(c.base)
	for _, ck := range c.hc.Jar.Cookies(u) {
		if ck.Name == auth.CookieName && ck.Value != "" {
			return true
		}
	}
	return false
}

// Get fetches path and returns the status and body.
func (c *Client) Get(path string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.read(c.Do(req))
}

// PostForm posts a form to path and returns the status and body.
func (c *Client) PostForm(path string, form url.Values) (int, string) {
	c.t.Helper()
	return c.read(c.Do(c.NewPost(path, form)))
}

// NewPost is a form POST to path, for tests that add headers (HX-Request,
// a foreign Origin) before Do.
func (c *Client) NewPost(path string, form url.Values) *http.Request {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

// Do sends a request; non-GET requests carry Origin = the panel's URL
// unless the request sets its own. The caller closes the body.
func (c *Client) Do(req *http.Request) *http.Response {
	c.t.Helper()
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		if _, ok := req.Header["Origin"]; !ok {
			req.Header.Set("Origin", c.base)
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("paneltest: %s %s: %v", req.Method, req.URL.Path, err)
	}
	return resp
}

func (c *Client) read(resp *http.Response) (int, string) {
	c.t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("paneltest: read body: %v", err)
	}
	return resp.StatusCode, string(b)
}

// BrowserLogin drives the login page in a browsertest tab: it opens
// /login, types the name and password, submits, and waits until the
// browser has left the login page.
func (p *Panel) BrowserLogin(t testing.TB, tab context.Context, name, password string) {
	t.Helper()
	browsertest.Run(t, tab, 20*time.Second, "open the login page",
		chromedp.Navigate(p.URL+"/login"),
		chromedp.WaitVisible(`#login-name`, chromedp.ByQuery),
		chromedp.SendKeys(`#login-name`, name, chromedp.ByQuery),
		chromedp.SendKeys(`#login-password`, password, chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
	)
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.WaitNotPresent(`form[data-login-form]`, chromedp.ByQuery)); err != nil {
		var msg string
		mctx, mcancel := context.WithTimeout(tab, 2*time.Second)
		defer mcancel()
		_ = chromedp.Run(mctx, chromedp.Text(`[data-login-error]`, &msg, chromedp.ByQuery, chromedp.AtLeast(0)))
		t.Fatalf("paneltest: browser login as %s stayed on the login page (%q): %v", name, msg, err)
	}
}
