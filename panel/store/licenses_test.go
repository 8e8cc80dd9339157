package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/store"
)

// openP4Store is a migrated store on a fresh database (P4's tests' own
// helper; named so it cannot clash with other files of the package).
func openP4Store(t *testing.T) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dsn := pgtest.NewDatabase(t)
	if _, err := store.Migrate(ctx, dsn); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	s, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestLicenses_CreateListDisableLabel(t *testing.T) {
	s := openP4Store(t)
	ctx := context.Background()
	if err := s.CreateLicense(ctx, "lic-b", "second"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateLicense(ctx, "lic-a", "first"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateLicense(ctx, "lic-a", "again"); !errors.Is(err, store.ErrLicenseExists) {
		t.Fatalf("duplicate: got %v, want ErrLicenseExists", err)
	}
	for _, bad := range []string{"", "has space", "dot.ted", "star*", string(make([]byte, 65))} {
		if err := s.CreateLicense(ctx, bad, ""); !errors.Is(err, store.ErrInvalidLicenseID) {
			t.Errorf("CreateLicense(%q): got %v, want ErrInvalidLicenseID", bad, err)
		}
	}
	if err := s.SetLicenseDisabled(ctx, "lic-b", store.LicenseDisabled); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLicenseLabel(ctx, "lic-a", "renamed"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLicenseDisabled(ctx, "nope", store.LicenseDisabled); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown license: got %v, want ErrNotFound", err)
	}
	if err := s.SetLicenseLabel(ctx, "nope", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown license label: got %v, want ErrNotFound", err)
	}
	ls, err := s.Licenses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[0].ID != "lic-a" || ls[0].Label != "renamed" || ls[0].Disabled ||
		ls[1].ID != "lic-b" || !ls[1].Disabled || ls[1].CreatedAt.IsZero() {
		t.Fatalf("licenses = %+v", ls)
	}
}
