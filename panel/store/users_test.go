package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/store"
)

// openUsersStore is a migrated store on a fresh database (this file's own
// helper; named so it cannot clash with other files of the package).
func openUsersStore(t *testing.T) *store.Store {
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

func TestUsers_CreateListRoleAndGrants(t *testing.T) {
	s := openUsersStore(t)
	ctx := context.Background()
	for _, lic := range []string{"lic-a", "lic-b", "lic-c"} {
		if err := s.CreateLicense(ctx, lic, ""); err != nil {
			t.Fatal(err)
		}
	}
	bob, err := s.CreateUser(ctx, "bob", "$argon2id$hash-b", "viewer")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, "alice", "$argon2id$hash-a", "admin"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, "bob", "x", "admin"); !errors.Is(err, store.ErrUserExists) {
		t.Fatalf("duplicate name = %v", err)
	}
	if _, err := s.CreateUser(ctx, "eve", "x", "root"); err == nil {
		t.Fatal("an unknown role was stored")
	}
	if err := s.SetGrants(ctx, bob.ID, []string{"lic-c", "lic-a", "lic-a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(ctx, bob.ID, "lic-b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(ctx, bob.ID, "lic-b"); err != nil {
		t.Fatalf("granting twice: %v", err)
	}
	if err := s.Revoke(ctx, bob.ID, "lic-c"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRole(ctx, bob.ID, "operator"); err != nil {
		t.Fatal(err)
	}
	users, err := s.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 2 || users[0].Name != "alice" || users[1].Name != "bob" {
		t.Fatalf("users %+v", users)
	}
	if b := users[1]; b.Role != "operator" || strings.Join(b.Licenses, ",") != "lic-a,lic-b" || b.PasswordHash != "$argon2id$hash-b" || b.Disabled {
		t.Fatalf("bob %+v", b)
	}
	if g, _ := s.Grants(ctx, bob.ID); strings.Join(g, ",") != "lic-a,lic-b" {
		t.Fatalf("grants %v", g)
	}
	if n, _ := s.UserCount(ctx); n != 2 {
		t.Fatalf("count %d", n)
	}
}

func TestUsers_NotFound(t *testing.T) {
	s := openUsersStore(t)
	ctx := context.Background()
	u, err := s.CreateUser(ctx, "bob", "x", "operator")
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]error{
		"by name":         func() error { _, err := s.UserByName(ctx, "nobody"); return err }(),
		"by id":           func() error { _, err := s.UserByID(ctx, 999); return err }(),
		"role":            s.SetRole(ctx, 999, "admin"),
		"disable":         s.DisableUser(ctx, 999),
		"enable":          s.EnableUser(ctx, 999),
		"password":        s.SetPassword(ctx, 999, "x"),
		"delete":          s.DeleteUser(ctx, 999),
		"grant license":   s.Grant(ctx, u.ID, "no-such-license"),
		"grant user":      s.Grant(ctx, 999, "no-such-license"),
		"set grants":      s.SetGrants(ctx, u.ID, []string{"no-such-license"}),
		"session of none": s.CreateSession(ctx, make([]byte, 32), 999, time.Now(), time.Now().Add(time.Hour)),
	}
	for name, err := range checks {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
}

// A new password or a disabled account ends every session of the user;
// a role change does not.
func TestUsers_PasswordAndDisableEndSessions(t *testing.T) {
	s := openUsersStore(t)
	ctx := context.Background()
	u, err := s.CreateUser(ctx, "bob", "old", "operator")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := s.CreateUser(ctx, "carol", "x", "operator")
	now := time.Now()
	session := func(uid int64, b byte) {
		t.Helper()
		h := make([]byte, 32)
		h[0], h[1] = b, byte(uid)
		if err := s.CreateSession(ctx, h, uid, now, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	session(u.ID, 1)
	session(u.ID, 2)
	session(other.ID, 3)
	if err := s.SetRole(ctx, u.ID, "viewer"); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.SessionCount(ctx); n != 3 {
		t.Fatalf("a role change ended sessions: %d left", n)
	}
	if err := s.SetPassword(ctx, u.ID, "new"); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.SessionCount(ctx); n != 1 {
		t.Fatalf("after a new password %d sessions, want carol's 1", n)
	}
	if got, _ := s.UserByID(ctx, u.ID); got.PasswordHash != "new" {
		t.Fatalf("hash %q", got.PasswordHash)
	}
	session(u.ID, 4)
	if err := s.DisableUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.SessionCount(ctx); n != 1 {
		t.Fatalf("after disable %d sessions, want 1", n)
	}
	if got, _ := s.UserByName(ctx, "bob"); !got.Disabled {
		t.Fatal("not disabled")
	}
	if err := s.DeleteUser(ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.SessionCount(ctx); n != 0 {
		t.Fatalf("deleting a user left %d sessions", n)
	}
}

func TestSessions_ByHashTouchPrune(t *testing.T) {
	s := openUsersStore(t)
	ctx := context.Background()
	u, _ := s.CreateUser(ctx, "bob", "x", "operator")
	t0 := time.Now().Truncate(time.Second)
	fresh, idle, old := []byte("fresh-token-hash-0123456789abcdef"), []byte("idle-token-hash-0123456789abcdefg"), []byte("old-token-hash-0123456789abcdefgh")
	for _, h := range [][]byte{fresh, idle} {
		if err := s.CreateSession(ctx, h, u.ID, t0, t0.Add(7*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateSession(ctx, old, u.ID, t0.Add(-8*24*time.Hour), t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchSession(ctx, fresh, t0.Add(11*time.Hour)); err != nil {
		t.Fatal(err)
	}
	se, err := s.SessionByHash(ctx, fresh)
	if err != nil || se.UserID != u.ID || se.User.Name != "bob" || !se.LastSeen.Equal(t0.Add(11*time.Hour)) {
		t.Fatalf("session %+v, %v", se, err)
	}
	n, err := s.PruneSessions(ctx, t0.Add(12*time.Hour+time.Second), 12*time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("prune = %d, %v; want the idle and the expired", n, err)
	}
	if _, err := s.SessionByHash(ctx, idle); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("idle session after prune: %v", err)
	}
	if err := s.DeleteSession(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.DeleteUserSessions(ctx, u.ID); n != 0 {
		t.Fatalf("%d sessions left", n)
	}
}
