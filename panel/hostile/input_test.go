package hostile

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/panel/store"
)

// notText is the words of every refusal of bytes that are not text.
const notText = "not UTF-8 text or holds a NUL byte"

// TestHostile_BytesThatAreNotText: bytes that are not UTF-8, or NUL, in a
// query or form are a 400 in words at the edge; they never reach
// PostgreSQL or an agent (they came back as 500 and 503 "cannot read the
// audit log", which reads like an outage: issue 17 point 6). A legitimate
// search cut inside a character still works.
func TestHostile_BytesThatAreNotText(t *testing.T) {
	e := start(t)
	inst := "/hosts/other/instances/world1"
	e.run(t, []probe{
		{name: "search not UTF-8", as: asAdmin, path: "/?q=%FF%FE", want: http.StatusBadRequest, says: notText},
		{name: "search with NUL", as: asAdmin, path: "/?q=a%00b", want: http.StatusBadRequest, says: notText},
		{name: "search cut inside é", as: asAdmin, path: "/?q=" + strings.Repeat("a", 99) + "%C3%A9", want: http.StatusOK},
		{name: "search by an operator", as: asOp, path: "/?online=%FF", want: http.StatusBadRequest, says: notText},
		{name: "servers search not UTF-8", as: asOp, path: "/servers?q=%FF%FE", want: http.StatusBadRequest, says: notText},
		{name: "servers state that is none", as: asOp, path: "/servers?state=%3Cb%3E", want: http.StatusBadRequest, says: "there is no server state"},
		{name: "audit user not UTF-8", as: asAdmin, path: "/audit?user=%FF", want: http.StatusBadRequest, says: notText, never: "cannot read the audit log"},
		{name: "audit instance NUL", as: asOp, path: "/audit?instance=%00", want: http.StatusBadRequest, says: notText, never: "cannot read the audit log"},
		{name: "field name not UTF-8", as: asAdmin, path: "/audit?%FF=1", want: http.StatusBadRequest, says: notText},
		{name: "license in the path", as: asAdmin, path: "/hosts/%FF", want: http.StatusBadRequest, says: notText},
		{name: "files path", as: asOp, path: inst + "/files?path=%FF", want: http.StatusBadRequest, says: notText},
		{name: "console line with NUL", as: asOp, method: http.MethodPost, path: inst + "/console/send",
			form: url.Values{"line": {"say hi\x00"}}, want: http.StatusBadRequest, says: notText},
		{name: "admin form", as: asAdmin, method: http.MethodPost, path: "/admin/licenses",
			form: url.Values{"id": {"lic\xff"}, "label": {"x"}}, want: http.StatusBadRequest, says: notText},
		// A multipart upload's fields and file name: \xff.txt would reach
		// the agent as \uFFFD.txt, another name than the operator's.
		{name: "upload file name not UTF-8", as: asOp, method: http.MethodPost, path: inst + "/files/upload",
			upload: []part{{name: "replace", value: "1"}, {name: "file", file: "\xff.txt", value: "x"}}, want: http.StatusBadRequest, says: notText},
		// (net/http's multipart reader already refuses a NUL in a part's header.)
		{name: "upload file name with NUL", as: asOp, method: http.MethodPost, path: inst + "/files/upload",
			upload: []part{{name: "replace", value: "1"}, {name: "file", file: "a\x00.txt", value: "x"}}, want: http.StatusBadRequest, says: "the upload could not be read"},
		{name: "upload folder not UTF-8", as: asOp, method: http.MethodPost, path: inst + "/files/upload",
			upload: []part{{name: "dir", value: "cfg\xfe"}, {name: "replace", value: "1"}, {name: "file", file: "a.txt", value: "x"}}, want: http.StatusBadRequest, says: notText},
		{name: "upload replace with NUL", as: asOp, method: http.MethodPost, path: inst + "/files/upload",
			upload: []part{{name: "replace", value: "1\x00"}, {name: "file", file: "a.txt", value: "x"}}, want: http.StatusBadRequest, says: notText},
		{name: "upload field name not UTF-8", as: asOp, method: http.MethodPost, path: inst + "/files/upload",
			upload: []part{{name: "\xff", value: "1"}, {name: "replace", value: "1"}, {name: "file", file: "a.txt", value: "x"}}, want: http.StatusBadRequest, says: notText},
	})
	if rows := e.audit(t, store.AuditFilter{Action: "instance.send"}); len(rows) != 1 || rows[0].Result != store.AuditDenied {
		t.Errorf("the refused console line: audit %+v", rows)
	}
}

// TestHostile_LoginFormThatIsNotText: `POST /login name=admin%FF` is a
// failed login: 400 in words, audited, and counted by the failed-login
// limit, so it cannot be used to guess without limit (it answered 500,
// skipped the limit and the audit row: issue 17 point 6).
func TestHostile_LoginFormThatIsNotText(t *testing.T) {
	e := start(t)
	c := e.Anon(t)
	for i := range 4 {
		status, body := c.PostForm("/login", url.Values{"name": {AdminName + "\xff"}, "password": {"guess"}})
		if status != http.StatusBadRequest || !strings.Contains(body, notText) {
			t.Fatalf("attempt %d = %d, want 400 in words:\n%s", i+1, status, excerpt(body))
		}
	}
	if status, _ := c.PostForm("/login", url.Values{"name": {"ad\x00min"}, "password": {"guess"}}); status != http.StatusTooManyRequests {
		t.Fatalf("the fifth = %d, want 429 (the address is locked)", status)
	}
	rows := e.audit(t, store.AuditFilter{Action: "login", Result: store.AuditDenied})
	if len(rows) != 5 || rows[len(rows)-1].Target != AdminName+"\uFFFD" || rows[0].Target != "admin" {
		t.Fatalf("denied login rows %+v", rows)
	}
}
