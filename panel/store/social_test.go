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
		got[1].License != "lic-a" || got[1].State != "running" {
		t.Fatalf("got %+v", got)
	}
}
