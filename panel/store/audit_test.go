package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/store"
)

func TestRecordAudit_RejectsBadRows(t *testing.T) {
	s := openP4Store(t)
	ctx := context.Background()
	if err := s.RecordAudit(ctx, store.AuditEntry{Result: store.AuditOK}); err == nil {
		t.Error("empty action accepted")
	}
	if err := s.RecordAudit(ctx, store.AuditEntry{Action: "x", Result: "maybe"}); err == nil {
		t.Error("unknown result accepted")
	}
	// Anonymous (user 0) is stored as NULL, not as a dangling reference.
	if err := s.RecordAudit(ctx, store.AuditEntry{Action: "login", Result: store.AuditDenied, UserName: "mallory"}); err != nil {
		t.Fatalf("anonymous row: %v", err)
	}
}

func TestAudit_FiltersScopeAndPaging(t *testing.T) {
	s := openP4Store(t)
	ctx := context.Background()
	alice := seedAudit(t, s)
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC) // seedAudit's first row
	actions := func(es []store.AuditEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Action+"/"+e.License+"/"+string(e.Result))
		}
		return out
	}
	cases := []struct {
		name string
		f    store.AuditFilter
		want []string
	}{
		{"all newest first", store.AuditFilter{}, []string{"user.role//ok", "files.save/lic-b/error", "user.add//ok", "instance.power/lic-b/denied", "instance.power/lic-a/ok"}},
		{"user", store.AuditFilter{User: "alice"}, []string{"instance.power/lic-b/denied", "instance.power/lic-a/ok"}},
		{"action prefix", store.AuditFilter{Action: "user."}, []string{"user.role//ok", "user.add//ok"}},
		{"action exact", store.AuditFilter{Action: "user.add"}, []string{"user.add//ok"}},
		{"license", store.AuditFilter{License: "lic-b"}, []string{"files.save/lic-b/error", "instance.power/lic-b/denied"}},
		{"instance", store.AuditFilter{Instance: "world10"}, []string{"instance.power/lic-a/ok"}},
		{"result", store.AuditFilter{Result: store.AuditDenied}, []string{"instance.power/lic-b/denied"}},
		{"time window", store.AuditFilter{Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Minute)}, []string{"user.add//ok", "instance.power/lic-b/denied"}},
		{"scope: own actions and granted license", store.AuditFilter{Scope: &store.AuditScope{UserID: alice, Licenses: []string{"lic-a"}}},
			[]string{"instance.power/lic-b/denied", "instance.power/lic-a/ok"}},
		{"scope: another user's grant", store.AuditFilter{Scope: &store.AuditScope{UserID: 999, Licenses: []string{"lic-b"}}},
			[]string{"files.save/lic-b/error", "instance.power/lic-b/denied"}},
		{"scope: nothing granted", store.AuditFilter{Scope: &store.AuditScope{UserID: 999}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Audit(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(actions(got), c.want) {
				t.Fatalf("got %v, want %v", actions(got), c.want)
			}
		})
	}
	page1, err := s.Audit(ctx, store.AuditFilter{Limit: 2})
	if err != nil || len(page1) != 2 {
		t.Fatalf("page 1: %v %v", page1, err)
	}
	page2, err := s.Audit(ctx, store.AuditFilter{Limit: 2, Before: page1[1].ID})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(page2); !slices.Equal(got, []string{"user.add//ok", "instance.power/lic-b/denied"}) {
		t.Fatalf("page 2 = %v", got)
	}
	if page2[0].At.IsZero() || page1[0].UserName != "root" || page2[1].UserID != alice || page2[1].Detail == "" {
		t.Fatalf("fields lost: %+v", page2)
	}
}

// seedAudit creates lic-a, lic-b and the operator alice, and writes five
// rows a minute apart; it returns alice's id.
func seedAudit(t *testing.T, s *store.Store) int64 {
	t.Helper()
	ctx := context.Background()
	for _, id := range []string{"lic-a", "lic-b"} {
		if err := s.CreateLicense(ctx, id, ""); err != nil {
			t.Fatal(err)
		}
	}
	var alice int64
	if err := s.Pool().QueryRow(ctx, `INSERT INTO panel_users (name, password_hash, role)
		VALUES ('alice', 'x', 'operator') RETURNING id`).Scan(&alice); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	rows := []store.AuditEntry{
		{At: t0, UserID: alice, UserName: "alice", Action: "instance.power", License: "lic-a", Instance: "world10", Target: "stop", Result: store.AuditOK},
		{At: t0.Add(time.Minute), UserID: alice, UserName: "alice", Action: "instance.power", License: "lic-b", Instance: "world11", Result: store.AuditDenied, Detail: "you have no grant for license lic-b"},
		{At: t0.Add(2 * time.Minute), UserName: "root", Action: "user.add", Target: "bob", Result: store.AuditOK},
		{At: t0.Add(3 * time.Minute), UserName: "root", Action: "files.save", License: "lic-b", Instance: "world11", Result: store.AuditError},
		{At: t0.Add(4 * time.Minute), UserName: "root", Action: "user.role", Target: "alice", Result: store.AuditOK},
	}
	for _, e := range rows {
		if err := s.RecordAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	return alice
}
