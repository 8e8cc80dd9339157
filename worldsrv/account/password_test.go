package account

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// cheap keeps the tests of the format fast; the store's tests use the
// default parameters.
var cheap = Params{Memory: 64, Time: 1, Threads: 1}

func TestPassword_PHCRoundTrip(t *testing.T) {
	for _, p := range []Params{DefaultParams, cheap, {Memory: 256, Time: 3, Threads: 2}} {
		h, err := hashPassword("hunter2", p)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(h) {
			t.Fatalf("hash %q is not a PHC argon2id string", h)
		}
		parsed, err := parsePHC(h)
		if err != nil || parsed.params != p {
			t.Fatalf("parsePHC(%q) = %+v, %v; want params %+v", h, parsed.params, err, p)
		}
		for pw, want := range map[string]bool{"hunter2": true, "hunter3": false, "Hunter2": false, "hunter": false} {
			if ok, err := verifyPassword(pw, h); err != nil || ok != want {
				t.Fatalf("verify(%q) = %v, %v; want %v", pw, ok, err, want)
			}
		}
		if h2, _ := hashPassword("hunter2", p); h2 == h {
			t.Fatal("two hashes of one password share a salt")
		}
	}
}

// A PHC string built from one of the argon2id reference test vectors
// (x/crypto's argon2_test.go: "password" salted "somesalt", t=1, m=64,
// p=1, a 24-byte tag) verifies, so hashes are the standard algorithm and
// the key length is read from the string.
func TestPassword_VerifiesReferenceVector(t *testing.T) {
	const h = "$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$ZVrRXqxlLcWfcXCnMyv0m4Rpvh/bnCi7"
	for pw, want := range map[string]bool{"password": true, "passwore": false} {
		if ok, err := verifyPassword(pw, h); err != nil || ok != want {
			t.Fatalf("verify(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
}

func TestPassword_RefusesBadPHC(t *testing.T) {
	good, err := hashPassword("x", cheap)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, "$")
	bad := map[string]string{
		"empty":         "",
		"argon2i":       strings.Replace(good, "argon2id", "argon2i", 1),
		"old version":   strings.Replace(good, "v=19", "v=16", 1),
		"missing part":  strings.Join(parts[:5], "$"),
		"huge memory":   "$argon2id$v=19$m=4194304,t=1,p=1$" + parts[4] + "$" + parts[5],
		"trailing junk": "$argon2id$v=19$m=64,t=1,p=1x$" + parts[4] + "$" + parts[5],
		"zero time":     "$argon2id$v=19$m=64,t=0,p=1$" + parts[4] + "$" + parts[5],
		"zero threads":  "$argon2id$v=19$m=64,t=1,p=0$" + parts[4] + "$" + parts[5],
		"bad salt":      "$argon2id$v=19$m=64,t=1,p=1$!!$" + parts[5],
		"short hash":    "$argon2id$v=19$m=64,t=1,p=1$" + parts[4] + "$AAAA",
		"bcrypt":        "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"plain text":    "hunter2",
	}
	for name, h := range bad {
		t.Run(name, func(t *testing.T) {
			ok, err := verifyPassword("x", h)
			if ok || !errors.Is(err, errBadPHC) {
				t.Fatalf("verify against %q = %v, %v; want errBadPHC", h, ok, err)
			}
		})
	}
}

// BenchmarkHash is one argon2id hash at DefaultParams: the cost of one
// login (or registration) on one core.
func BenchmarkHash(b *testing.B) {
	for b.Loop() {
		if _, err := hashPassword("correct horse", DefaultParams); err != nil {
			b.Fatal(err)
		}
	}
}
