package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's cost parameters, written into every hash so that a
// hash stays verifiable after the defaults change.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
}

// DefaultParams: OWASP's minimum for argon2id (m=19 MiB, t=2, p=1), the
// same as worldsrv/account. One hash takes about 23 ms of one core on the
// 2-core build machine; with MaxConcurrentHashes = GOMAXPROCS the hashes in
// flight hold at most GOMAXPROCS × 19 MiB however many logins arrive.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1}

// Password length limits for new passwords, in characters (min) and bytes
// (max: argon2 takes any length, but a megabyte "password" is an attack).
const (
	MinPasswordLen = 10
	MaxPasswordLen = 1024
)

const (
	saltLen = 16
	keyLen  = 32
)

var b64 = base64.RawStdEncoding

// ErrPasswordRules is wrapped by CheckNewPassword's errors.
var ErrPasswordRules = errors.New("password rules")

// CheckNewPassword returns a clear error when a new password breaks the
// rules: at least MinPasswordLen characters, at most MaxPasswordLen bytes.
func CheckNewPassword(pw string) error {
	if n := utf8.RuneCountInString(pw); n < MinPasswordLen {
		return fmt.Errorf("%w: a password needs at least %d characters (this one has %d)", ErrPasswordRules, MinPasswordLen, n)
	}
	if len(pw) > MaxPasswordLen {
		return fmt.Errorf("%w: a password may have at most %d bytes", ErrPasswordRules, MaxPasswordLen)
	}
	return nil
}

// HashPassword returns the PHC string of password under p with a fresh
// random salt: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>. It is not
// bounded: servers hash through a Hasher.
func HashPassword(password string, p Params) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("read salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// phc is a parsed PHC string.
type phc struct {
	params Params
	salt   []byte
	key    []byte
}

// ErrBadHash is returned for a stored hash that is not an argon2id PHC
// string this package can verify.
var ErrBadHash = errors.New("not an argon2id PHC string")

// Bounds on parameters read back from the database, so a corrupt or
// hostile row cannot make one verification allocate gigabytes.
const (
	maxPHCMemory = 1 << 20 // KiB: 1 GiB
	maxPHCTime   = 64
)

func parsePHC(s string) (phc, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return phc{}, ErrBadHash
	}
	if parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return phc{}, fmt.Errorf("%w: version %q", ErrBadHash, parts[2])
	}
	var p Params
	n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads)
	if err != nil || n != 3 || parts[3] != fmt.Sprintf("m=%d,t=%d,p=%d", p.Memory, p.Time, p.Threads) ||
		p.Threads < 1 || p.Memory < 8*uint32(p.Threads) || p.Memory > maxPHCMemory || p.Time < 1 || p.Time > maxPHCTime {
		return phc{}, fmt.Errorf("%w: parameters %q", ErrBadHash, parts[3])
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return phc{}, fmt.Errorf("%w: salt", ErrBadHash)
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return phc{}, fmt.Errorf("%w: hash", ErrBadHash)
	}
	return phc{params: p, salt: salt, key: key}, nil
}

// VerifyPassword reports whether password matches the PHC string encoded,
// comparing in constant time. A malformed string is an error, never a
// match. It is not bounded: servers verify through a Hasher.
func VerifyPassword(password, encoded string) (bool, error) {
	h, err := parsePHC(encoded)
	if err != nil {
		return false, err
	}
	key := argon2.IDKey([]byte(password), h.salt, h.params.Time, h.params.Memory, h.params.Threads, uint32(len(h.key)))
	return subtle.ConstantTimeCompare(key, h.key) == 1, nil
}
