package hostile

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/panel/admin"
	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/console"
	"github.com/corrosion/corrosion/panel/files"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/reach"
	"github.com/corrosion/corrosion/panel/reachui"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/social"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// The licenses and operators every hostile panel has.
const (
	Demo      = "demo"  // the admin's customer; the operator has no grant on it
	Other     = "other" // the operator's only license
	AdminName = "root"
	OpName    = "olga"
)

// env is a running panel under attack.
type env struct {
	P       *paneltest.Panel
	Admin   *paneltest.Client // logged in as AdminName
	Op      *paneltest.Client // logged in as OpName, an operator granted only Other
	AdminPW string
	OpPW    string
}

// start runs the whole panel (the features corrosion-panel serve mounts)
// with Demo, Other, the admin and the operator; mods adjust the options.
func start(t *testing.T, mods ...func(*paneltest.Options)) *env {
	t.Helper()
	o := paneltest.Options{Features: allFeatures}
	for _, m := range mods {
		m(&o)
	}
	p := paneltest.Start(t, o)
	p.AddLicense(t, Demo)
	p.AddLicense(t, Other)
	e := &env{P: p}
	e.AdminPW = p.AddUser(t, AdminName, auth.RoleAdmin)
	e.OpPW = p.AddUser(t, OpName, auth.RoleOperator, Other)
	e.Admin = p.Client(t, AdminName, e.AdminPW)
	e.Op = p.Client(t, OpName, e.OpPW)
	return e
}

// allFeatures builds every feature as panel/app's buildFeatures does.
func allFeatures(d paneltest.Deps) []httpx.Feature {
	live, err := fleetui.NewLive(livestate.Config{}, d.NC, d.Store, d.Logger, livestate.NewMetrics(d.Registry))
	if err != nil {
		panic(err) // a test panel's configuration is fixed: this is a bug in the harness
	}
	d.Go(func(ctx context.Context) { _ = live.Run(ctx) })
	collector := social.NewCollector(d.Logger)
	d.Go(func(ctx context.Context) { _ = collector.Run(ctx, d.NC) })
	head := func(ctx context.Context, pr *auth.Principal, license, instance string) (ui.InstanceHead, error) {
		return fleetui.Head(ctx, d.Store, license, instance, pr)
	}
	cons := console.New(server.TabDeps{NATS: d.NC, Head: head, Logger: d.Logger})
	if err := cons.RegisterMetrics(d.Registry); err != nil {
		panic(err)
	}
	prober, err := reach.New(reach.Options{Logger: d.Logger}) // serve's policy
	if err != nil {
		panic(err)
	}
	return []httpx.Feature{
		fleetui.New(fleetui.Deps{Store: d.Store, Agents: agentc.New(d.NC), Live: live, Logger: d.Logger}),
		cons,
		files.New(server.TabDeps{NATS: d.NC, Head: head, Logger: d.Logger}),
		social.New(social.Deps{Store: d.Store, Collector: collector, Logger: d.Logger}),
		admin.New(admin.Deps{Store: d.Store, Hasher: d.Sessions.Hasher(), Logger: d.Logger}),
		reachui.New(reachui.Deps{Store: d.Store, Prober: prober}),
	}
}

// Anon is a client nobody logged in on.
func (e *env) Anon(t *testing.T) *paneltest.Client { return e.P.AnonClient(t) }

// who names a probe's caller.
type who int

const (
	asAdmin who = iota
	asOp
	asAnon
)

func (w who) String() string { return [...]string{"admin", "operator", "anonymous"}[w] }

func (e *env) client(t *testing.T, w who) *paneltest.Client {
	switch w {
	case asAdmin:
		return e.Admin
	case asOp:
		return e.Op
	}
	return e.Anon(t)
}

// probe is one hostile request and what the panel must answer.
type probe struct {
	name   string
	as     who
	method string     // default GET
	path   string     // with the query, already escaped
	form   url.Values // the POST body (url-encoded)
	upload []part     // the POST body as multipart/form-data instead of form
	origin string     // the Origin header of a POST; default the panel's own
	want   int        // the status
	says   string     // a phrase the body must hold ("" : any)
	never  string     // a phrase the body must not hold ("" : none)
}

// run sends every probe as a subtest.
func (e *env) run(t *testing.T, probes []probe) {
	t.Helper()
	for _, pr := range probes {
		t.Run(pr.name, func(t *testing.T) {
			c := e.client(t, pr.as)
			var resp *http.Response
			if pr.method == "" || pr.method == http.MethodGet {
				req, err := http.NewRequest(http.MethodGet, e.P.URL+pr.path, nil)
				if err != nil {
					t.Fatal(err)
				}
				resp = c.Do(req)
			} else {
				req := c.NewPost(pr.path, pr.form)
				if pr.upload != nil {
					req = multipartPost(t, e.P.URL+pr.path, pr.upload)
				}
				req.Method = pr.method
				if pr.origin != "" {
					req.Header.Set("Origin", pr.origin)
				}
				resp = c.Do(req)
			}
			body := readBody(t, resp)
			if resp.StatusCode != pr.want {
				t.Fatalf("%s %s as %s = %d, want %d:\n%s", pr.method, pr.path, pr.as, resp.StatusCode, pr.want, excerpt(body))
			}
			if pr.says != "" && !strings.Contains(body, pr.says) {
				t.Errorf("%s %s as %s: the answer does not say %q:\n%s", pr.method, pr.path, pr.as, pr.says, excerpt(body))
			}
			if pr.never != "" && strings.Contains(body, pr.never) {
				t.Errorf("%s %s as %s: the answer says %q", pr.method, pr.path, pr.as, pr.never)
			}
		})
	}
}

// part is one field of a multipart body: a file named file when file is
// not "", else a plain field.
type part struct{ name, file, value string }

// multipartPost is a POST of parts to u as multipart/form-data, as a
// browser's upload form sends it.
func multipartPost(t *testing.T, u string, parts []part) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.file != "" {
			w, err = mw.CreateFormFile(p.name, p.file)
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		if err == nil {
			_, err = io.WriteString(w, p.value)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, u, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

// audit returns the audit rows matching f, newest first.
func (e *env) audit(t *testing.T, f store.AuditFilter) []store.AuditEntry {
	t.Helper()
	f.Limit = store.MaxAuditLimit
	rows, err := e.P.Store.Audit(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
		if b.Len() > 1<<20 {
			break // a live stream: what came so far is enough
		}
	}
	return b.String()
}

// excerpt is the text of an error page worth showing in a failure: its
// title and messages, not the whole document.
func excerpt(body string) string {
	if i := strings.Index(body, "<main"); i >= 0 {
		body = body[i:]
	}
	if len(body) > 600 {
		body = body[:600] + "…"
	}
	return body
}
