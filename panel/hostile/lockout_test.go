package hostile

import (
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
)

// TestHostile_LockoutCannotBeRaced: 30 concurrent wrong passwords for the
// admin's name, then the right one while they hash, at the real argon2id
// costs. The name is locked and stays locked: the right password is
// refused during the lockout, however the requests interleave (it logged
// in: issue 17 point 2).
func TestHostile_LockoutCannotBeRaced(t *testing.T) {
	e := start(t, func(o *paneltest.Options) { o.Auth.Hasher.Params = auth.DefaultParams })
	var wg sync.WaitGroup
	statuses := make([]int, 30)
	for i := range statuses {
		wg.Go(func() {
			statuses[i], _ = e.Anon(t).PostForm("/login", url.Values{"name": {AdminName}, "password": {"not the password"}})
		})
	}
	// The right password while the wrong ones hash: once they hold the
	// name (a fixed 40 ms was too short on a loaded machine, where fewer
	// than five had arrived and the right password rightly got in).
	poll.True(t, 15*time.Second, "the wrong passwords hold the name", func() bool {
		return e.P.Sessions().LoginBlocked(AdminName)
	})
	c := e.Anon(t)
	status, body := c.PostForm("/login", url.Values{"name": {AdminName}, "password": {e.AdminPW}})
	wg.Wait()
	if status != http.StatusTooManyRequests {
		t.Fatalf("the right password during the race = %d, want 429:\n%s", status, excerpt(body))
	}
	checked := 0
	for _, s := range statuses {
		switch s {
		case http.StatusUnauthorized:
			checked++
		case http.StatusTooManyRequests:
		default:
			t.Errorf("a wrong password answered %d", s)
		}
	}
	if checked > 5 {
		t.Errorf("%d wrong passwords were checked; a name locks after 5", checked)
	}
	if status, _ := c.PostForm("/login", url.Values{"name": {AdminName}, "password": {e.AdminPW}}); status != http.StatusTooManyRequests {
		t.Fatalf("the right password after the race = %d, want 429", status)
	}
	ok := e.audit(t, store.AuditFilter{Action: "login", Result: store.AuditOK})
	if len(ok) != 2 { // the harness's own two logins, before the attack
		t.Fatalf("%d successful logins audited, want the harness's 2", len(ok))
	}
}
