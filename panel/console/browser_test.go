package console_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/corrosion/corrosion/agent/rcon/rcontest"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/console"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/web/ui"
)

// fullPanel is a test panel wired as corrosion-panel serve wires it:
// ingest, the live state hub, the fleet pages (whose Head fills the
// instance frame) and the console feature.
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
			console.New(server.TabDeps{NATS: d.NC, Head: head, Logger: d.Logger}),
		}
	}})
}

// In chromium: console lines appear (backlog and live), a line typed in
// the input reaches the game and its echo comes back; an RCON command
// shows its output and up-arrow brings it back.
func TestBrowser_ConsoleAndRCON(t *testing.T) {
	p := fullPanel(t)
	p.AddLicense(t, licA)
	rc := rcontest.NewSource(t, rcontest.SourceOptions{Password: "pw",
		Handler: func(cmd string) string { return "players: 2/64\nmap: procedural (seed 42)\ncommand was: " + cmd }})
	paneltest.StartAgent(t, p.NATSURL, licA, paneltest.AgentInstance{ID: "game", Label: "Demo world", Autostart: true,
		Args: []string{"-banner", "hello from the game", "-stdout-lines", "4", "-stderr-lines", "1", "-line", "tick: 12 players online"},
		RCON: &paneltest.AgentRCON{Kind: "source", Port: rc.Port(), Password: "pw"}})
	pw := p.AddUser(t, "olga", auth.RoleOperator, licA)
	c := p.Client(t, "olga", pw)
	poll.True(t, 15*time.Second, "the instance reached the store", func() bool {
		status, _ := c.Get(gameURL + "/console")
		return status == 200
	})
	b := browsertest.New(t)
	tab := b.Tab(1280, 800)
	p.BrowserLogin(t, tab, "olga", pw)
	var state string
	browsertest.Run(t, tab, 30*time.Second, "open the console and see lines",
		chromedp.Navigate(p.URL+gameURL+"/console"),
		waitText(`[data-console-out]`, "hello from the game"),
		waitText(`[data-console-out]`, "tick: 12 players online"),
		chromedp.SendKeys(`input[name=line]`, "say hello-browser"+kb.Enter, chromedp.ByQuery),
		waitText(`[data-console-out]`, "echo: say hello-browser"),
		chromedp.Text(`[data-console-state]`, &state, chromedp.ByQuery),
	)
	if !strings.HasPrefix(state, "Live") {
		t.Fatalf("console state %q, want Live", state)
	}
	browsertest.Screenshot(t, tab, "panel-console")
	checkScrollback(t, p, tab)
	var value string
	browsertest.Run(t, tab, 30*time.Second, "run an RCON command",
		chromedp.Navigate(p.URL+gameURL+"/rcon"),
		chromedp.WaitVisible(`input[name=command]`, chromedp.ByQuery),
		chromedp.SendKeys(`input[name=command]`, "status"+kb.Enter, chromedp.ByQuery),
		waitText(`#rcon-history`, "command was: status"),
		chromedp.SendKeys(`input[name=command]`, kb.ArrowUp, chromedp.ByQuery),
		chromedp.Value(`input[name=command]`, &value, chromedp.ByQuery),
	)
	if value != "status" {
		t.Fatalf("up arrow gave %q, want the last command", value)
	}
	browsertest.Screenshot(t, tab, "panel-rcon")
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("page errors: %q", errs)
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

// checkScrollback floods the open console past its scrollback: it keeps
// the newest 5,000 lines and says how many left; scrolled up, it stops
// following and offers "Jump to live", which goes back to the newest line.
func checkScrollback(t *testing.T, p *paneltest.Panel, tab context.Context) {
	t.Helper()
	flood := func(from, n int) {
		m := wire.ConsoleMessage{Timestamp: time.Now(), InstanceID: "game"}
		for i := from; i < from+n; i++ {
			m.Lines = append(m.Lines, wire.ConsoleLine{Stream: "stdout", Text: fmt.Sprintf("flood line %d", i)})
		}
		if err := p.NC.Publish(wire.ConsoleSubject(licA, "game"), m.AppendJSON(nil)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		flood(i*2000, 2000)
	}
	var lines int
	var note string
	browsertest.Run(t, tab, 30*time.Second, "the scrollback keeps the newest 5,000 lines",
		waitText(`[data-console-out]`, "flood line 7999"),
		chromedp.Evaluate(`document.querySelectorAll("[data-console-out] .ln:not(.trimmed)").length`, &lines),
		chromedp.Text(`[data-console-out] .ln.trimmed`, &note, chromedp.ByQuery),
	)
	if lines != 5000 || !strings.Contains(note, "older lines left the scrollback") {
		t.Fatalf("console holds %d lines, note %q; want 5000 and a note", lines, note)
	}
	var atBottom bool
	var pill string
	browsertest.Run(t, tab, 30*time.Second, "scroll up, new lines, jump to live",
		chromedp.Evaluate(`(function(){var o=document.querySelector("[data-console-out]");o.scrollTop=0;o.dispatchEvent(new Event("scroll"));return true})()`, nil),
		chromedp.ActionFunc(func(context.Context) error { flood(8000, 10); return nil }),
		waitText(`[data-console-out]`, "flood line 8009"),
		chromedp.WaitVisible(`[data-console-jump]`, chromedp.ByQuery),
		chromedp.Text(`[data-console-jump]`, &pill, chromedp.ByQuery),
		chromedp.Click(`[data-console-jump]`, chromedp.ByQuery),
		chromedp.Evaluate(`(function(){var o=document.querySelector("[data-console-out]");return o.scrollHeight-o.scrollTop-o.clientHeight<8})()`, &atBottom),
	)
	if !strings.Contains(pill, "new)") || !atBottom {
		t.Fatalf("pill %q; at the newest line after jumping: %v", pill, atBottom)
	}
}

// TestBrowser_SaysWhatIsMissing: an ether sidecar (no RCON) and an
// instance the agent only watches (no console input), as an operator
// meets them: the tab says so at once, no input waits to fail.
func TestBrowser_SaysWhatIsMissing(t *testing.T) {
	p := fullPanel(t)
	p.AddLicense(t, licA)
	paneltest.StartAgent(t, p.NATSURL, licA,
		paneltest.AgentInstance{ID: "ether10", Game: "ether", Label: "Social sidecar of world 1", Autostart: true},
		paneltest.AgentInstance{ID: "watched", Game: "rust", Unmanaged: true})
	pw := p.AddUser(t, "olga", auth.RoleOperator, licA)
	c := p.Client(t, "olga", pw)
	base := "/hosts/" + licA + "/instances/"
	poll.True(t, 15*time.Second, "the instances reached the store", func() bool {
		s1, _ := c.Get(base + "ether10/rcon")
		s2, _ := c.Get(base + "watched/console")
		return s1 == 200 && s2 == 200
	})
	b := browsertest.New(t)
	tab := b.Tab(1280, 800)
	p.BrowserLogin(t, tab, "olga", pw)
	for _, c := range []struct{ what, path, notice, words, input, shot string }{
		{"the RCON tab of a sidecar says it has no RCON", "ether10/rcon", "[data-no-rcon]", "This instance has no RCON", "command", "panel-rcon-none"},
		{"the console of a watched instance says it reads no input", "watched/console", "[data-no-input]", "This instance reads no console input", "line", "panel-console-no-input"},
	} {
		var inputs int
		browsertest.Run(t, tab, 30*time.Second, c.what,
			chromedp.Navigate(p.URL+base+c.path),
			waitText(c.notice, c.words),
			chromedp.Evaluate(`document.querySelectorAll("input[name=`+c.input+`]").length`, &inputs),
		)
		if inputs != 0 {
			t.Fatalf("%s: %d %s inputs offered", c.path, inputs, c.input)
		}
		browsertest.Screenshot(t, tab, c.shot)
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("page errors: %q", errs)
	}
}
