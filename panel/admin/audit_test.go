package admin_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/store"
)

func TestAuditPage_FiltersPagingAndBadInput(t *testing.T) {
	p := startAdminPanel(t)
	p.AddLicense(t, "lic-a")
	p.AddLicense(t, "lic-b")
	root := p.Client(t, "root", p.AddUser(t, "root", auth.RoleAdmin))
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	for i := range 60 {
		e := store.AuditEntry{At: t0.Add(time.Duration(i) * time.Minute), UserName: "carol", Action: "instance.power",
			License: "lic-a", Instance: "world10", Target: fmt.Sprintf("stop-%02d", i), Result: store.AuditOK}
		if i%10 == 0 {
			e.Result, e.License, e.Detail = store.AuditDenied, "lic-b", "you are a viewer"
		}
		if err := p.Store.RecordAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	status, body := root.Get("/audit?user=carol")
	if status != http.StatusOK || strings.Count(body, "<tr class=\"audit-") != 50 || !strings.Contains(body, "stop-59") ||
		strings.Contains(body, "stop-09") || !strings.Contains(body, `rel="next"`) {
		t.Fatalf("first page: %d rows", strings.Count(body, "<tr class=\"audit-"))
	}
	older := between(body, `href="`, `" rel="next"`)
	if !strings.Contains(older, "user=carol") || !strings.Contains(older, "before=") {
		t.Fatalf("older link %q", older)
	}
	_, body = root.Get(strings.ReplaceAll(older, "&amp;", "&"))
	if n := strings.Count(body, "<tr class=\"audit-"); n != 10 || !strings.Contains(body, "stop-00") || strings.Contains(body, `rel="next"`) ||
		!strings.Contains(body, "← Newest") {
		t.Fatalf("second page: %d rows", n)
	}
	_, body = root.Get("/audit?result=denied&license=lic-b")
	if n := strings.Count(body, `<tr class="audit-denied" data-result="denied">`); n != 6 || !strings.Contains(body, "you are a viewer") {
		t.Fatalf("denied on lic-b: %d rows", n)
	}
	_, body = root.Get("/audit?user=carol&since=2026-11-20T08:30&until=2026-11-20T08:35")
	if n := strings.Count(body, "<tr class=\"audit-"); n != 5 || !strings.Contains(body, "stop-30") || strings.Contains(body, "stop-35") {
		t.Fatalf("time window: %d rows", n)
	}
	_, body = root.Get("/audit?instance=nothing-here")
	if !strings.Contains(body, "No audit rows match") {
		t.Fatal("no empty state for a filter matching nothing")
	}
	for q, want := range map[string]string{"result=maybe": "not ok, denied or error", "since=yesterday": "is not a time",
		"license=a%20b": "not a license id", "before=-3": "not a row number"} {
		if status, body := root.Get("/audit?" + q); status != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("/audit?%s: %d, want 400 with %q", q, status, want)
		}
	}
	viewer := p.Client(t, "vic", p.AddUser(t, "vic", auth.RoleViewer, "lic-b"))
	_, body = viewer.Get("/audit?user=carol")
	if n := strings.Count(body, "<tr class=\"audit-"); n != 6 || strings.Contains(body, "lic-a /") {
		t.Fatalf("a viewer of lic-b sees %d of carol's rows (want the 6 on lic-b)", n)
	}
}

func between(s, from, to string) string {
	j := strings.Index(s, to)
	if j < 0 {
		return ""
	}
	i := strings.LastIndex(s[:j], from)
	if i < 0 {
		return ""
	}
	return s[i+len(from) : j]
}
