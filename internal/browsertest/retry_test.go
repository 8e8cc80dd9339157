package browsertest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A chromium that dies on its first start (as Debian's does now and then
// on a loaded machine) gets a fresh try: the tab works.
func TestTab_RetriesAChromiumThatDiesStarting(t *testing.T) {
	real, err := Chromium()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "started-once")
	flaky := filepath.Join(dir, "chromium")
	script := "#!/bin/sh\nif [ ! -e '" + marker + "' ]; then : > '" + marker + "'; echo 'chrome dies starting' >&2; exit 1; fi\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(flaky, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	b := &Browser{t: t, path: flaky}
	tab := b.Tab(400, 300)
	var title string
	Run(t, tab, 20*time.Second, "title", chromedp.Navigate("data:text/html,<title>second</title>"), chromedp.Title(&title))
	if title != "second" {
		t.Fatalf("title %q after the retry", title)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the first start never happened: %v", err)
	}
}
