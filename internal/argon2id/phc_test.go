package argon2id

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// cheap keeps the tests of the format fast.
var cheap = Params{Memory: 64, Time: 1, Threads: 1}

func TestHash_PHCRoundTrip(t *testing.T) {
	for _, p := range []Params{DefaultParams, cheap, {Memory: 256, Time: 3, Threads: 2}} {
		h, err := Hash("hunter2", p)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(h) {
			t.Fatalf("hash %q is not a PHC argon2id string", h)
		}
		parsed, err := ParsePHC(h)
		if err != nil || parsed.Params != p {
			t.Fatalf("ParsePHC(%q) = %+v, %v; want params %+v", h, parsed.Params, err, p)
		}
		for pw, want := range map[string]bool{"hunter2": true, "hunter3": false, "Hunter2": false, "hunter": false, "": false} {
			if ok, err := Verify(pw, h); err != nil || ok != want {
				t.Fatalf("verify(%q) = %v, %v; want %v", pw, ok, err, want)
			}
		}
		if h2, _ := Hash("hunter2", p); h2 == h {
			t.Fatal("two hashes of one password share a salt")
		}
	}
}

// DefaultParams are OWASP's minimum, m=19456,t=2,p=1, as both callers document.
func TestDefaultParams_OWASP(t *testing.T) {
	h, err := Hash("correct horse battery", DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not at OWASP's parameters", h)
	}
}

// A PHC string built from one of the argon2id reference test vectors
// (x/crypto's argon2_test.go: "password" salted "somesalt", t=1, m=64,
// p=1, a 24-byte tag) verifies, so hashes are the standard algorithm and
// the key length is read from the string.
func TestVerify_ReferenceVector(t *testing.T) {
	const h = "$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$ZVrRXqxlLcWfcXCnMyv0m4Rpvh/bnCi7"
	for pw, want := range map[string]bool{"password": true, "passwore": false} {
		if ok, err := Verify(pw, h); err != nil || ok != want {
			t.Fatalf("verify(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
}

func TestVerify_RefusesBadPHC(t *testing.T) {
	good, err := Hash("x", cheap)
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
		"huge time":     "$argon2id$v=19$m=64,t=1000,p=1$" + parts[4] + "$" + parts[5],
		"trailing junk": "$argon2id$v=19$m=64,t=1,p=1x$" + parts[4] + "$" + parts[5],
		"zero time":     "$argon2id$v=19$m=64,t=0,p=1$" + parts[4] + "$" + parts[5],
		"zero threads":  "$argon2id$v=19$m=64,t=1,p=0$" + parts[4] + "$" + parts[5],
		"memory < 8p":   "$argon2id$v=19$m=15,t=1,p=2$" + parts[4] + "$" + parts[5],
		"bad salt":      "$argon2id$v=19$m=64,t=1,p=1$!!$" + parts[5],
		"short salt":    "$argon2id$v=19$m=64,t=1,p=1$AAAA$" + parts[5],
		"short hash":    "$argon2id$v=19$m=64,t=1,p=1$" + parts[4] + "$AAAA",
		"bcrypt":        "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"plain text":    "hunter2",
	}
	for name, h := range bad {
		t.Run(name, func(t *testing.T) {
			ok, err := Verify("x", h)
			if ok || !errors.Is(err, ErrBadHash) {
				t.Fatalf("verify against %q = %v, %v; want ErrBadHash", h, ok, err)
			}
		})
	}
}

// FuzzParsePHC: a stored hash is untrusted input; whatever parses stays
// inside the bounds that keep one verification cheap, and nothing crashes.
func FuzzParsePHC(f *testing.F) {
	f.Add("$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$ZVrRXqxlLcWfcXCnMyv0m4Rpvh/bnCi7")
	f.Add("$argon2id$v=19$m=8,t=1,p=1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA")
	f.Add("$argon2id$$$$")
	f.Fuzz(func(t *testing.T, h string) {
		p, err := ParsePHC(h)
		if err != nil {
			if !errors.Is(err, ErrBadHash) {
				t.Fatalf("ParsePHC(%q) = %v, not ErrBadHash", h, err)
			}
			return
		}
		if p.Params.Memory > MaxMemory || p.Params.Time > MaxTime || p.Params.Time < 1 || p.Params.Threads < 1 ||
			p.Params.Memory < 8*uint32(p.Params.Threads) || len(p.Salt) < 8 || len(p.Key) < 16 || len(p.Key) > 64 {
			t.Fatalf("accepted out-of-bounds %q: %+v", h, p)
		}
	})
}

// BenchmarkHash is one argon2id hash at DefaultParams: the cost of one
// login (or registration) on one core.
func BenchmarkHash(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Hash("correct horse", DefaultParams); err != nil {
			b.Fatal(err)
		}
	}
}
