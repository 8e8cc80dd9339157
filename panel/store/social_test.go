package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/store"
)

func TestSocialInstances_OnlyEtherAndWorldsOfEnabledLicenses(t *testing.T) {
	s := openP4Store(t)
	ctx := context.Background()
	for _, id := range []string{"lic-a", "lic-off"} {
		if err := s.CreateLicense(ctx, id, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetLicenseDisabled(ctx, "lic-off", store.LicenseDisabled); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, r := range [][3]string{{"lic-a", "world10", "worldsrv"}, {"lic-a", "ether10", "ether"},
		{"lic-a", "rust1", "rust"}, {"lic-off", "world11", "worldsrv"}} {
		if _, err := s.Pool().Exec(ctx, `INSERT INTO panel_instances (license_id, instance_id, game, state, state_since, updated_at)
			VALUES ($1, $2, $3, 'running', $4, $4)`, r[0], r[1], r[2], now); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.SocialInstances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Instance != "ether10" || got[0].Game != "ether" || got[1].Instance != "world10" ||
		got[1].License != "lic-a" || got[1].State != "running" || got[1].StoppedBy != "" || !got[1].StoppedAt.IsZero() {
		t.Fatalf("got %+v", got)
	}

	// Who stopped it: the instance's newest successful power action, when
	// that is a stop.
	power := func(user, target string, result store.AuditResult, at time.Time) {
		t.Helper()
		if err := s.RecordAudit(ctx, store.AuditEntry{At: at, UserName: user, Action: "instance.power", License: "lic-a",
			Instance: "world10", Target: target, Result: result}); err != nil {
			t.Fatal(err)
		}
	}
	stoppedBy := func() store.SocialInstance {
		t.Helper()
		got, err := s.SocialInstances(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return got[1]
	}
	t0 := now.Truncate(time.Second)
	power("ada", "stop", store.AuditOK, t0)
	power("eve", "stop", store.AuditDenied, t0.Add(time.Second))
	if w := stoppedBy(); w.StoppedBy != "ada" || !w.StoppedAt.Equal(t0) {
		t.Fatalf("after ada's stop: %q at %v", w.StoppedBy, w.StoppedAt)
	}
	power("bob", "start", store.AuditOK, t0.Add(2*time.Second))
	if w := stoppedBy(); w.StoppedBy != "" || !w.StoppedAt.IsZero() {
		t.Fatalf("after bob's start: %q at %v", w.StoppedBy, w.StoppedAt)
	}
}
