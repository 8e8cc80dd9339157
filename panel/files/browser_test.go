package files_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/files"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/web/ui"
)

// fullPanel is a test panel wired as corrosion-panel serve wires it:
// ingest, the live state hub, the fleet pages (whose Head fills the
// instance frame) and the files feature.
func fullPanel(t *testing.T) *paneltest.Panel {
	t.Helper()
	return paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		paneltest.StartIngest(t, d)
		live, err := fleetui.NewLive(livestate.Config{Tick: 100 * time.Millisecond}, d.NC, d.Store, d.Logger, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.Go(func(ctx context.Context) { _ = live.Run(ctx) })
		head := func(ctx context.Context, p *auth.Principal, license, instance string) (ui.InstanceHead, error) {
			return fleetui.Head(ctx, d.Store, license, instance, p)
		}
		return []httpx.Feature{
			fleetui.New(fleetui.Deps{Store: d.Store, Agents: d.Agents, Live: live, Logger: d.Logger}),
			files.New(server.TabDeps{NATS: d.NC, Head: head, Logger: d.Logger}),
		}
	}})
}

// In chromium: browse to a config file, edit it, save, and the change is
// on disk (with the file's LF line ends, though the browser sends CRLF).
func TestBrowser_EditAndSaveFile(t *testing.T) {
	p := fullPanel(t)
	p.AddLicense(t, licA)
	a := paneltest.StartAgent(t, p.NATSURL, licA, paneltest.AgentInstance{ID: "game", Label: "Demo world", Autostart: true})
	e := &env{p: p, root: a.Root("game")}
	e.write(t, "cfg/server.cfg", "hostname \"Corrosion demo\"\nmaxplayers 10\n")
	e.write(t, "cfg/motd.txt", "Welcome!\n")
	e.write(t, "saves/world.sav", "\x00\x01save")
	e.write(t, "server.log", strings.Repeat("tick\n", 300))
	pw := p.AddUser(t, "olga", auth.RoleOperator, licA)
	c := p.Client(t, "olga", pw)
	poll.True(t, 15*time.Second, "the instance reached the store", func() bool {
		status, _ := c.Get(fbase)
		return status == 200
	})
	b := browsertest.New(t)
	tab := b.Tab(1280, 800)
	p.BrowserLogin(t, tab, "olga", pw)
	browsertest.Run(t, tab, 30*time.Second, "browse the root",
		chromedp.Navigate(p.URL+fbase),
		chromedp.WaitVisible(`table.files`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, tab, "panel-files-list")
	checkListingLayout(t, tab)
	var status string
	browsertest.Run(t, tab, 30*time.Second, "open cfg/server.cfg, edit and save",
		chromedp.Click(`//a[normalize-space(text())="cfg/"]`, chromedp.BySearch),
		chromedp.WaitVisible(`//a[text()="server.cfg"]`, chromedp.BySearch),
		chromedp.Click(`//a[text()="server.cfg"]`, chromedp.BySearch),
		chromedp.WaitVisible(`textarea.editor`, chromedp.ByQuery),
		chromedp.SetValue(`textarea.editor`, "hostname \"Edited in the browser\"\nmaxplayers 64\n", chromedp.ByQuery),
		chromedp.Click(`form.fileedit button[type=submit]`, chromedp.ByQuery),
		waitText(`#save-status`, "Saved"),
		chromedp.Text(`#save-status`, &status, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, tab, "panel-files")
	var info string
	browsertest.Run(t, tab, 10*time.Second, "the header shows the saved size",
		waitText(`.fileinfo`, "47 B"), chromedp.Text(`.fileinfo`, &info, chromedp.ByQuery))
	if got, want := e.read(t, "cfg/server.cfg"), "hostname \"Edited in the browser\"\nmaxplayers 64\n"; got != want {
		t.Fatalf("on disk after the browser saved: %q, want %q (status %q)", got, want, status)
	}
	deleteWithConfirmation(t, e, tab)
	newFile(t, e, tab)
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("page errors: %q", errs)
	}
}

// checkListingLayout: the Size header stands over its right-aligned numbers, and
// the New folder button is centred on its input (it sat lower).
func checkListingLayout(t *testing.T, tab context.Context) {
	t.Helper()
	var got struct{ HeadRight, CellRight, InputMid, ButtonMid float64 }
	browsertest.Run(t, tab, 10*time.Second, "measure the listing", chromedp.Evaluate(`(() => {
		const textRight = (el) => { const r = document.createRange(); r.selectNodeContents(el); return r.getBoundingClientRect().right; };
		const cell = [...document.querySelectorAll('table.files td.num')].find(td => td.textContent.trim() !== '');
		const mid = (el) => { const b = el.getBoundingClientRect(); return b.top + b.height / 2; };
		const form = document.querySelector('.filetools form');
		return {HeadRight: textRight(document.querySelector('table.files th.num')), CellRight: textRight(cell),
			InputMid: mid(form.querySelector('input[name=name]')), ButtonMid: mid(form.querySelector('button'))};
	})()`, &got))
	if d := got.HeadRight - got.CellRight; d > 2 || d < -2 {
		t.Errorf("the Size header ends at x=%.0f, its numbers at x=%.0f: not aligned", got.HeadRight, got.CellRight)
	}
	if d := got.ButtonMid - got.InputMid; d > 2 || d < -2 {
		t.Errorf("the New folder button's middle is %.1f px off its input's", d)
	}
}

// newFile creates cfg/notes.txt from the listing's New file form: the editor
// opens on the empty file, and the same name again is refused in words.
func newFile(t *testing.T, e *env, tab context.Context) {
	t.Helper()
	var refusal string
	browsertest.Run(t, tab, 30*time.Second, "create cfg/notes.txt",
		chromedp.Navigate(e.p.URL+fbase+"?path=cfg"),
		chromedp.SendKeys(`[data-new-file] input[name=name]`, "notes.txt", chromedp.ByQuery),
		chromedp.Click(`[data-new-file] button`, chromedp.ByQuery),
		chromedp.WaitVisible(`textarea.editor`, chromedp.ByQuery),
		waitText(`.fileinfo`, "0 B"),
		chromedp.Navigate(e.p.URL+fbase+"?path=cfg"),
		chromedp.SendKeys(`[data-new-file] input[name=name]`, "notes.txt", chromedp.ByQuery),
		chromedp.Click(`[data-new-file] button`, chromedp.ByQuery),
		waitText(`[data-new-file] [data-error]`, "already exists"),
		chromedp.Text(`[data-new-file] [data-error]`, &refusal, chromedp.ByQuery),
	)
	if !e.exists("cfg/notes.txt") || e.read(t, "cfg/notes.txt") != "" {
		t.Fatalf("cfg/notes.txt after New file: exists %v", e.exists("cfg/notes.txt"))
	}
	if !strings.Contains(refusal, "/cfg/notes.txt already exists") {
		t.Fatalf("the second New file said %q", refusal)
	}
}

// waitText waits until the element's text holds want.
func waitText(sel, want string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for {
			var text string
			if err := chromedp.Run(ctx, chromedp.Text(sel, &text, chromedp.ByQuery)); err != nil {
				return err
			}
			if strings.Contains(text, want) {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
}

// deleteWithConfirmation deletes cfg/motd.txt from its row's menu: the
// confirmation names the path, and the listing says what was deleted.
func deleteWithConfirmation(t *testing.T, e *env, tab context.Context) {
	t.Helper()
	asked := make(chan string, 1)
	chromedp.ListenTarget(tab, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			asked <- d.Message
			go func() { _ = chromedp.Run(tab, page.HandleJavaScriptDialog(true)) }()
		}
	})
	var flash string
	browsertest.Run(t, tab, 30*time.Second, "delete cfg/motd.txt from its menu",
		chromedp.Navigate(e.p.URL+fbase+"?path=cfg"),
		chromedp.Click(`summary[aria-label="More actions for motd.txt"]`, chromedp.ByQuery),
		chromedp.Click(`//tr[.//a[text()="motd.txt"]]//button[normalize-space(.)="Delete"]`, chromedp.BySearch),
		waitText(`.notice.ok`, "Deleted"),
		chromedp.Text(`.notice.ok`, &flash, chromedp.ByQuery),
	)
	if q := <-asked; !strings.Contains(q, "/cfg/motd.txt") {
		t.Fatalf("the confirmation %q does not name the path", q)
	}
	if flash != "Deleted /cfg/motd.txt." || e.exists("cfg/motd.txt") {
		t.Fatalf("after delete: flash %q, still on disk: %v", flash, e.exists("cfg/motd.txt"))
	}
}
