package dev

import (
	"context"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestPrepareStoreReusesADatabase: a second dev on the same DATABASE_URL
// keeps the demo license and gives the admin a new password (printed
// again), which is the only one that works.
func TestPrepareStoreReusesADatabase(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	first, err := prepareStore(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	second, err := prepareStore(ctx, dsn)
	if err != nil {
		t.Fatalf("second dev on the same database: %v", err)
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.UserByName(ctx, "admin")
	if err != nil || u.Role != string(auth.RoleAdmin) || u.Disabled {
		t.Fatalf("admin: %+v %v", u, err)
	}
	if ok, _ := auth.VerifyPassword(second, u.PasswordHash); !ok {
		t.Error("the second printed password does not log in")
	}
	if ok, _ := auth.VerifyPassword(first, u.PasswordHash); ok {
		t.Error("the first password still works after a new one was printed")
	}
	if ls, err := st.Licenses(ctx); err != nil || len(ls) != 1 || ls[0].ID != License {
		t.Errorf("licenses: %+v %v", ls, err)
	}
}

func TestGeneratePassword(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		pw := GeneratePassword()
		if len(pw) != 20 || strings.Trim(pw, passwordAlphabet) != "" || seen[pw] {
			t.Fatalf("password %q: want 20 fresh characters of the alphabet", pw)
		}
		if err := auth.CheckNewPassword(pw); err != nil {
			t.Fatal(err)
		}
		seen[pw] = true
	}
}
