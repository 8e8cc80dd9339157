package auth

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var cheap = Params{Memory: 64, Time: 1, Threads: 1}

func TestHashPassword_PHCRoundTrip(t *testing.T) {
	h, err := HashPassword("correct horse battery", DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(h) {
		t.Fatalf("hash %q is not a PHC argon2id string at OWASP's parameters", h)
	}
	for pw, want := range map[string]bool{"correct horse battery": true, "correct horse batterY": false, "": false} {
		ok, err := VerifyPassword(pw, h)
		if err != nil || ok != want {
			t.Errorf("verify %q = %v, %v; want %v", pw, ok, err, want)
		}
	}
	h2, _ := HashPassword("correct horse battery", DefaultParams)
	if h2 == h {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
}

func TestVerifyPassword_RejectsMalformed(t *testing.T) {
	good, _ := HashPassword("x", cheap)
	parts := strings.Split(good, "$")
	cases := map[string]string{
		"empty":         "",
		"bcrypt":        "$2a$10$abcdefghijklmnopqrstuu5Qk5NaA9dG7m0rBpdn3cZk6x1Q0n1Wy",
		"argon2i":       strings.Replace(good, "argon2id", "argon2i", 1),
		"old version":   strings.Replace(good, "v=19", "v=16", 1),
		"huge memory":   "$argon2id$v=19$m=4194304,t=1,p=1$" + parts[4] + "$" + parts[5],
		"huge time":     "$argon2id$v=19$m=64,t=1000,p=1$" + parts[4] + "$" + parts[5],
		"trailing junk": "$argon2id$v=19$m=64,t=1,p=1x$" + parts[4] + "$" + parts[5],
		"zero threads":  "$argon2id$v=19$m=64,t=1,p=0$" + parts[4] + "$" + parts[5],
		"bad salt":      "$argon2id$v=19$m=64,t=1,p=1$!!$" + parts[5],
		"short hash":    "$argon2id$v=19$m=64,t=1,p=1$" + parts[4] + "$AAAA",
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			ok, err := VerifyPassword("x", h)
			if ok || !errors.Is(err, ErrBadHash) {
				t.Fatalf("verify = %v, %v; want ErrBadHash", ok, err)
			}
		})
	}
}

func TestCheckNewPassword(t *testing.T) {
	cases := []struct {
		name, pw string
		ok       bool
	}{
		{"nine", "123456789", false},
		{"ten", "1234567890", true},
		{"ten runes, more bytes", "ääääääääää", true},
		{"too long", strings.Repeat("a", MaxPasswordLen+1), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckNewPassword(c.pw)
			if (err == nil) != c.ok {
				t.Fatalf("CheckNewPassword = %v, want ok=%v", err, c.ok)
			}
			if err != nil && (!errors.Is(err, ErrPasswordRules) || !strings.Contains(err.Error(), "password")) {
				t.Fatalf("unclear error %v", err)
			}
		})
	}
	if err := CheckNewPassword("short"); !strings.Contains(err.Error(), "at least 10 characters") {
		t.Fatalf("message %q does not say the rule", err)
	}
}

// A login storm never has more hashes in flight than the bound, and a
// caller that cannot get a slot within the wait gets ErrBusy.
func TestHasher_BoundsConcurrentHashes(t *testing.T) {
	h := NewHasher(HasherOptions{Params: Params{Memory: 2048, Time: 2, Threads: 1}, MaxConcurrent: 2, SlotWait: time.Minute})
	enc, _ := HashPassword("pw", h.params)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, err := h.Verify(context.Background(), "pw", enc); !ok || err != nil {
				bad.Add(1)
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d verifications failed", bad.Load())
	}
	if p := h.Peak(); p < 1 || p > 2 {
		t.Fatalf("peak hashes in flight %d, want 1..2", p)
	}

	busy := NewHasher(HasherOptions{Params: cheap, MaxConcurrent: 1, SlotWait: 10 * time.Millisecond})
	held, hold, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() { done <- busy.slots.Do(context.Background(), func() { close(held); <-hold }) }()
	<-held // the one slot is taken
	if _, err := busy.Hash(context.Background(), "pw"); !errors.Is(err, ErrBusy) || busy.Busy() != 1 {
		t.Fatalf("hash with no free slot = %v (busy count %d), want ErrBusy", err, busy.Busy())
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := busy.Hash(context.Background(), "pw"); err != nil {
		t.Fatalf("hash with a free slot: %v", err)
	}
}

// BenchmarkVerifyDefaultParams is one login's argon2id cost at
// DefaultParams: what bounds the panel's login rate per core.
func BenchmarkVerifyDefaultParams(b *testing.B) {
	enc, _ := HashPassword("correct horse battery", DefaultParams)
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := VerifyPassword("correct horse battery", enc); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
