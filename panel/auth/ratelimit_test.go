package auth

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 24, 2, 0, 0, 0, time.UTC)

// fail is one failed login of keys at now, as Sessions.Login makes it
// (reserved, then failed), and the lockout it returns.
func fail(t *testing.T, l *Limiter, now time.Time, keys ...string) time.Duration {
	t.Helper()
	a, wait, full := l.Reserve(now, keys...)
	switch {
	case wait > 0:
		return wait
	case a == nil || full != nil:
		t.Fatalf("reserve at %v: attempts in flight, none expected", now)
	}
	return a.Fail(now)
}

// wait is how long keys are locked out at now (0: not locked).
func wait(l *Limiter, now time.Time, keys ...string) time.Duration {
	a, wait, _ := l.Reserve(now, keys...)
	if a != nil {
		a.Cancel()
	}
	return wait
}

func TestLimiter_LocksAfterFailuresAndBacksOff(t *testing.T) {
	l := NewLimiter(LimitOptions{})
	k := UserKey("Alice")
	for i := range 4 {
		if w := fail(t, l, t0.Add(time.Duration(i)*time.Second), k); w != 0 {
			t.Fatalf("failure %d locked for %v", i+1, w)
		}
	}
	if w := fail(t, l, t0.Add(4*time.Second), k); w != time.Minute {
		t.Fatalf("fifth failure locks for %v, want 1m", w)
	}
	if w := wait(l, t0.Add(34*time.Second), UserKey("alice")); w != 30*time.Second {
		t.Fatalf("wait 30 s into the lockout = %v (names are case-insensitive)", w)
	}
	if w := wait(l, t0.Add(64*time.Second), k); w != 0 {
		t.Fatalf("after the lockout: still locked for %v", w)
	}
	// The next five failures lock for twice as long.
	var w time.Duration
	for i := range 5 {
		w = fail(t, l, t0.Add(70*time.Second+time.Duration(i)*time.Second), k)
	}
	if w != 2*time.Minute {
		t.Fatalf("second lockout %v, want 2m", w)
	}
}

func TestLimiter_WindowForgetsOldFailures(t *testing.T) {
	l := NewLimiter(LimitOptions{})
	k := AddrKey("192.0.2.7")
	for i := range 20 { // one failure every 15 s: 4 per minute, never 5
		if w := fail(t, l, t0.Add(time.Duration(i)*15*time.Second), k); w != 0 {
			t.Fatalf("failure %d locked for %v", i, w)
		}
	}
}

func TestLimiter_SuccessClearsOnlyTheName(t *testing.T) {
	l := NewLimiter(LimitOptions{MaxFailures: 2})
	u, a := UserKey("bob"), AddrKey("192.0.2.8")
	fail(t, l, t0, u, a)
	ok, _, _ := l.Reserve(t0, u, a)
	ok.Succeed(u)
	if w := fail(t, l, t0.Add(time.Second), u, a); w != time.Minute {
		t.Fatalf("the address's earlier failure was forgotten by a login: wait %v", w)
	}
}

func TestLimiter_IPv6CountsPerSlash64(t *testing.T) {
	if AddrKey("2001:db8::1") != AddrKey("2001:db8::ffff:1") {
		t.Fatal("two addresses of one /64 have different keys")
	}
	if AddrKey("2001:db8::1") == AddrKey("2001:db8:0:1::1") {
		t.Fatal("two /64s share a key")
	}
}

// An IPv4 client seen through an IPv4-mapped IPv6 address (a dual-stack
// listener) counts as the same client.
func TestLimiter_IPv4MappedCountsAsIPv4(t *testing.T) {
	if AddrKey("::ffff:192.0.2.7") != AddrKey("192.0.2.7") {
		t.Fatalf("an IPv4-mapped address has its own key: %s, %s", AddrKey("::ffff:192.0.2.7"), AddrKey("192.0.2.7"))
	}
}

// A storm of distinct names cannot grow memory past MaxKeys, and a locked
// key is not the one evicted while older ones exist.
func TestLimiter_BoundedMemory(t *testing.T) {
	l := NewLimiter(LimitOptions{MaxKeys: 100, MaxFailures: 1})
	fail(t, l, t0.Add(time.Hour), UserKey("victim"))
	for i := range 10_000 {
		fail(t, l, t0.Add(time.Duration(i)*time.Millisecond), UserKey(fmt.Sprint("name", i)))
	}
	if n := l.Len(); n > 100 {
		t.Fatalf("%d keys remembered, bound 100", n)
	}
	if wait(l, t0.Add(time.Hour), UserKey("victim")) == 0 {
		t.Fatal("the most recently failed key was evicted")
	}
}

// TestLimiter_ReserveCountsAttemptsInFlight: no more than MaxFailures
// attempts of a key are past the check at once; the next waits until one
// ends, and finds the key locked when they all failed.
func TestLimiter_ReserveCountsAttemptsInFlight(t *testing.T) {
	l := NewLimiter(LimitOptions{})
	keys := []string{UserKey("ada"), AddrKey("192.0.2.7")}
	var inFlight []*Attempt
	for i := range 5 {
		a, wait, full := l.Reserve(t0, keys...)
		if a == nil || wait != 0 || full != nil {
			t.Fatalf("attempt %d: %v %v %v", i+1, a, wait, full)
		}
		inFlight = append(inFlight, a)
	}
	a, wait, full := l.Reserve(t0, keys...)
	if a != nil || wait != 0 || full == nil {
		t.Fatalf("sixth attempt while five are in flight: %v %v %v, want to wait", a, wait, full)
	}
	for i, a := range inFlight {
		if i == 0 {
			a.Cancel() // could not be checked: no failure
			select {
			case <-full:
			default:
				t.Fatal("an ended attempt did not wake the waiter")
			}
			continue
		}
		a.Fail(t0)
	}
	if a, _, _ := l.Reserve(t0, keys...); a == nil {
		t.Fatal("four failures and nothing in flight: refused")
	} else if w := a.Fail(t0); w != time.Minute {
		t.Fatalf("fifth failure locks for %v, want 1m", w)
	}
	if a, wait, _ := l.Reserve(t0.Add(time.Second), keys...); a != nil || wait != 59*time.Second {
		t.Fatalf("locked key: attempt %v wait %v", a, wait)
	}
	// A success clears the name, not the address; a key with an attempt
	// in flight is never evicted.
	a, _, _ = l.Reserve(t0.Add(2*time.Minute), UserKey("bob"))
	a.Succeed(UserKey("bob"))
	if l.Len() != 2 {
		t.Fatalf("%d keys, want ada's and the address", l.Len())
	}
}

// TestLimiter_Blocked: a key is blocked while its attempts in flight and
// failures reach MaxFailures, and while it is locked out; an unknown key
// or one with room is not.
func TestLimiter_Blocked(t *testing.T) {
	l := NewLimiter(LimitOptions{MaxFailures: 2})
	now := t0
	if l.Blocked(now, "u:a") {
		t.Fatal("an unknown key is blocked")
	}
	a1, _, _ := l.Reserve(now, "u:a")
	if l.Blocked(now, "u:a") {
		t.Fatal("one attempt in flight of two blocks the key")
	}
	a2, _, _ := l.Reserve(now, "u:a")
	if !l.Blocked(now, "u:a") {
		t.Fatal("two attempts in flight of two do not block the key")
	}
	a1.Fail(now)
	a2.Fail(now)
	if !l.Blocked(now, "u:a") {
		t.Fatal("a locked key is not blocked")
	}
	if l.Blocked(now.Add(24*time.Hour), "u:a") {
		t.Fatal("a key whose lockout and window are over is still blocked")
	}
}
