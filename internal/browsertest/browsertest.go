// Package browsertest starts Debian's chromium headless for the page tests of
// the panel and the world's browser client, driven with chromedp, and keeps
// their screenshots in a test output folder (not committed). Only tests import
// it (internal/deptest keeps it out of shipped binaries).
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/testbin"
)

// EnvChromium names the browser binary; default /usr/bin/chromium.
const EnvChromium = "CHROMIUM"

// EnvOut names the screenshot folder; default <module root>/testoutput/screenshots.
const EnvOut = "BROWSERTEST_OUT"

// Browser starts headless chromium tabs for one test.
type Browser struct {
	t    testing.TB // immutable after New
	path string     // chromium binary; immutable after New

	mu     sync.Mutex // guards errors
	errors []string   // JavaScript exceptions and console errors, every tab
}

// Chromium returns the browser binary, or an error naming how to install it.
func Chromium() (string, error) {
	if p := os.Getenv(EnvChromium); p != "" {
		return p, nil
	}
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	return "", errors.New("chromium not found: install Debian's chromium (apt-get install chromium) or set " + EnvChromium)
}

// New prepares headless chromium for a test; every Tab is its own browser
// process, closed when the test ends. A missing browser fails the test:
// browser tests never skip.
func New(t testing.TB) *Browser {
	t.Helper()
	path, err := Chromium()
	if err != nil {
		t.Fatal(err)
	}
	return &Browser{t: t, path: path}
}

// Tab starts a browser with its own profile (own cookies and storage, like a
// second person) showing one tab at the given viewport size, closed at test
// cleanup. Run actions on it with Run, which bounds them in time.
//
// One process per person, because chromium's new headless mode refuses a
// second browser context ("no browser is open").
func (b *Browser) Tab(width, height int64) context.Context {
	b.t.Helper()
	// Debian's chromium now and then dies while starting on a loaded
	// machine (crashpad's "chrome failed to start"): a fresh process with a
	// fresh profile gets startAttempts tries before the test fails.
	var err error
	for try := 1; try <= startAttempts; try++ {
		var ctx context.Context
		if ctx, err = b.start(width, height); err == nil {
			return ctx
		}
		b.t.Logf("start chromium %s (try %d of %d): %v", b.path, try, startAttempts, err)
	}
	b.t.Fatalf("start chromium %s: %v", b.path, err)
	return nil
}

// startAttempts is how many times Tab starts chromium before it gives up.
const startAttempts = 3

// start runs one browser process for Tab. On error everything it started
// is already stopped and removed.
func (b *Browser) start(width, height int64) (context.Context, error) {
	profile, err := os.MkdirTemp("", "browsertest-profile-")
	if err != nil {
		return nil, err
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), b.options(profile, width, height)...)
	ctx, cancel := chromedp.NewContext(alloc)
	stop := func() {
		cancel()
		cancelAlloc()
		// chromium's helper processes may still write to the profile for a
		// moment after the browser exits: remove it with a bounded retry
		// instead of t.TempDir's strict cleanup.
		for i := 0; i < 50 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	}
	chromedp.ListenTarget(ctx, b.listen)
	// The first Run starts the browser: no deadline on it (a deadline would
	// bound the browser's life), and a broken install fails here, clearly.
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		stop()
		return nil, err
	}
	b.t.Cleanup(stop)
	return ctx, nil
}

func (b *Browser) options(profile string, width, height int64) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(b.path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(int(width), int(height)),
		// This machine's network is closed: without these, chromium keeps
		// trying to reach Google's hosts.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
}

// listen records a page's JavaScript exceptions and console errors.
func (b *Browser) listen(ev any) {
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		b.addError("exception: " + exceptionText(e.ExceptionDetails))
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.APITypeError {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, strings.Trim(string(a.Value), `"`))
			}
			b.addError("console.error: " + strings.Join(parts, " "))
		}
	}
}

func (b *Browser) addError(s string) {
	b.mu.Lock()
	b.errors = append(b.errors, s)
	b.mu.Unlock()
}

// Errors returns the JavaScript exceptions and console errors seen so far in
// every tab. Page tests assert it is empty at the end.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// Run runs chromedp actions on a tab with a deadline, failing the test with
// what was being done when an action fails.
func Run(t testing.TB, tab context.Context, timeout time.Duration, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, timeout)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("browser: %s: %v", what, err)
	}
}

// OutDir is the folder screenshots are written to, created on demand.
func OutDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvOut)
	if dir == "" {
		root, err := testbin.ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "testoutput", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Screenshot writes a full-page PNG of the tab to OutDir as name.png and
// returns its path.
func Screenshot(t testing.TB, tab context.Context, name string) string {
	t.Helper()
	var png []byte
	Run(t, tab, 20*time.Second, "screenshot "+name, chromedp.FullScreenshot(&png, 100)) // 100: PNG, not JPEG
	path := filepath.Join(OutDir(t), unsafeName.ReplaceAllString(name, "_")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("write screenshot: %v", err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// String describes the browser for failure messages.
func (b *Browser) String() string { return fmt.Sprintf("chromium (%d page errors)", len(b.Errors())) }

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "unknown"
	}
	s := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		s += " " + d.Exception.Description
	}
	return fmt.Sprintf("%s (%s:%d)", s, d.URL, d.LineNumber+1)
}
