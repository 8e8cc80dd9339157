package auth_test

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var cheap = auth.Params{Memory: 64, Time: 1, Threads: 1}

// clock is a settable time for session expiry.
type clock struct {
	mu  sync.Mutex
	now time.Time // guarded by mu
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	st  *store.Store
	s   *auth.Sessions
	clk *clock
	uid int64
}

func newFixture(t *testing.T, o auth.Options) *fixture {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	if _, err := store.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	clk := &clock{now: time.Now().Truncate(time.Second)}
	o.Hasher.Params, o.Now = cheap, clk.Now
	f := &fixture{st: st, s: auth.New(st, o), clk: clk}
	hash, _ := auth.HashPassword("alice's long password", cheap)
	u, err := st.CreateUser(ctx, "alice", hash, "operator")
	if err != nil {
		t.Fatal(err)
	}
	for _, lic := range []string{"zeta", "Alpha", "beta"} {
		if err := st.CreateLicense(ctx, lic, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetGrants(ctx, u.ID, []string{"zeta", "Alpha", "beta"}); err != nil {
		t.Fatal(err)
	}
	f.uid = u.ID
	return f
}

// request is a request carrying the login's session cookie.
func (f *fixture) request(l auth.Login) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.AddCookie(&http.Cookie{Name: auth.CookieName, Value: l.Token})
	return r
}

func (f *fixture) login(t *testing.T) auth.Login {
	t.Helper()
	l, err := f.s.Login(context.Background(), "alice", "alice's long password", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestSessions_LoginPrincipalWithSortedGrants(t *testing.T) {
	f := newFixture(t, auth.Options{})
	l := f.login(t)
	p, err := f.s.Principal(f.request(l))
	if err != nil || p == nil {
		t.Fatalf("principal = %v, %v", p, err)
	}
	if p.Name != "alice" || p.Role != auth.RoleOperator || strings.Join(p.Licenses, ",") != "Alpha,beta,zeta" {
		t.Fatalf("principal %+v", p)
	}
	for _, lic := range []string{"Alpha", "beta", "zeta"} {
		if !p.CanAct(lic) {
			t.Errorf("cannot act on granted %s", lic)
		}
	}
	if p.CanView("gamma") {
		t.Error("can view an ungranted license")
	}
}

// Only the token's sha256 is stored: a read of the table logs nobody in.
func TestSessions_StoresOnlyTheTokenHash(t *testing.T) {
	f := newFixture(t, auth.Options{})
	l := f.login(t)
	var stored []byte
	if err := f.st.Pool().QueryRow(context.Background(), `SELECT token_hash FROM panel_sessions`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	raw := decodeToken(t, l.Token)
	if sum := sha256.Sum256(raw); string(stored) != string(sum[:]) || len(raw) != 32 {
		t.Fatalf("stored %x, want sha256 of the 32-byte token", stored)
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.AddCookie(&http.Cookie{Name: auth.CookieName, Value: encodeToken(stored)})
	if p, _ := f.s.Principal(r); p != nil {
		t.Fatal("the stored hash works as a token")
	}
}

func TestSessions_Cookie(t *testing.T) {
	for _, c := range []struct {
		name       string
		behindTLS  bool
		tls        bool
		wantSecure bool
	}{
		{"plain http", false, false, false},
		{"over tls", false, true, true},
		{"behind a tls proxy", true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := auth.New(nil, auth.Options{BehindTLS: c.behindTLS})
			r := httptest.NewRequest(http.MethodPost, "/login", nil)
			if c.tls {
				r.TLS = &tls.ConnectionState{}
			}
			w := httptest.NewRecorder()
			s.SetCookie(w, r, auth.Login{Token: "t", Expires: time.Now().Add(time.Hour)})
			ck := w.Result().Cookies()[0]
			if ck.Name != "corrosion_session" || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure != c.wantSecure || ck.Path != "/" {
				t.Fatalf("cookie %+v", ck)
			}
		})
	}
}

func TestSessions_IdleAndAbsoluteExpiry(t *testing.T) {
	f := newFixture(t, auth.Options{})
	l := f.login(t)
	// Active every 11 hours: the idle timeout (12 h) never hits...
	for range 15 {
		f.clk.Add(11 * time.Hour)
		if p, err := f.s.Principal(f.request(l)); p == nil || err != nil {
			t.Fatalf("active session ended at %v: %v", f.clk.Now(), err)
		}
	}
	// ...but 7 days after login it ends anyway (15 × 11 h = 165 h; 168 h
	// is the limit; 4 h idle is well inside the idle timeout).
	f.clk.Add(4 * time.Hour)
	if p, _ := f.s.Principal(f.request(l)); p != nil {
		t.Fatal("session alive past its absolute expiry")
	}
	l2 := f.login(t)
	f.clk.Add(12 * time.Hour)
	if p, _ := f.s.Principal(f.request(l2)); p != nil {
		t.Fatal("session alive after 12 h idle")
	}
	if n, _ := f.st.SessionCount(context.Background()); n != 0 {
		t.Fatalf("%d expired sessions left in the table", n)
	}
}

func TestSessions_DisabledUserOutAtOnce(t *testing.T) {
	f := newFixture(t, auth.Options{})
	l := f.login(t)
	ctx := context.Background()
	// Even a disabled flag set behind the store's back ends the session.
	if _, err := f.st.Pool().Exec(ctx, `UPDATE panel_users SET disabled = true WHERE id = $1`, f.uid); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.s.Principal(f.request(l)); p != nil {
		t.Fatal("a disabled user's session still works")
	}
	if _, err := f.s.Login(ctx, "alice", "alice's long password", "192.0.2.1"); !errors.Is(err, auth.ErrDisabled) {
		t.Fatalf("disabled login = %v", err)
	}
	if err := f.st.EnableUser(ctx, f.uid); err != nil {
		t.Fatal(err)
	}
	l = f.login(t)
	if err := f.st.DisableUser(ctx, f.uid); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.st.SessionCount(ctx); n != 0 {
		t.Fatalf("DisableUser left %d sessions", n)
	}
}

func TestSessions_LogoutAndPrune(t *testing.T) {
	f := newFixture(t, auth.Options{})
	ctx := context.Background()
	l := f.login(t)
	if err := f.s.Logout(ctx, f.request(l)); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.s.Principal(f.request(l)); p != nil {
		t.Fatal("session works after logout")
	}
	f.login(t)
	f.login(t)
	f.clk.Add(13 * time.Hour)
	if n, err := f.s.Prune(ctx); n != 2 || err != nil {
		t.Fatalf("prune = %d, %v; want 2 idle sessions", n, err)
	}
}

func TestSessions_WrongPasswordsRateLimited(t *testing.T) {
	f := newFixture(t, auth.Options{})
	ctx := context.Background()
	for i := range 4 {
		if _, err := f.s.Login(ctx, "alice", "wrong password", "192.0.2.9"); !errors.Is(err, auth.ErrBadCredentials) {
			t.Fatalf("failure %d = %v", i+1, err)
		}
	}
	_, err := f.s.Login(ctx, "alice", "wrong password", "192.0.2.9")
	var rl *auth.RateLimitedError
	if !errors.As(err, &rl) || err.Error() != "too many failed logins, try again in 60 s" {
		t.Fatalf("fifth failure = %v", err)
	}
	// The right password from another address is refused too: the name is locked.
	if _, err := f.s.Login(ctx, "alice", "alice's long password", "192.0.2.10"); !errors.As(err, &rl) {
		t.Fatalf("locked name logged in: %v", err)
	}
	f.clk.Add(61 * time.Second)
	f.login(t)
	// Unknown names fail the same way as wrong passwords.
	if _, err := f.s.Login(ctx, "mallory", "whatever it is", "192.0.2.11"); !errors.Is(err, auth.ErrBadCredentials) {
		t.Fatalf("unknown user = %v", err)
	}
}
