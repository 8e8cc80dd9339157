package auth

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/corrosion/corrosion/internal/argon2id"
)

// Params are argon2id's cost parameters, written into every hash so that a
// hash stays verifiable after the defaults change.
type Params = argon2id.Params

// DefaultParams: OWASP's minimum for argon2id (m=19 MiB, t=2, p=1), the
// same as worldsrv/account (both are internal/argon2id's). One hash takes about 23 ms of one core on the
// 2-core build machine; with MaxConcurrentHashes = GOMAXPROCS the hashes in
// flight hold at most GOMAXPROCS × 19 MiB however many logins arrive.
var DefaultParams = argon2id.DefaultParams

// Password length limits for new passwords, in characters (min) and bytes
// (max: argon2 takes any length, but a megabyte "password" is an attack).
const (
	MinPasswordLen = 10
	MaxPasswordLen = 1024
)

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
	return argon2id.Hash(password, p)
}

// ErrBadHash is returned for a stored hash that is not an argon2id PHC
// string this package can verify.
var ErrBadHash = argon2id.ErrBadHash

// VerifyPassword reports whether password matches the PHC string encoded,
// comparing in constant time. A malformed string is an error, never a
// match. It is not bounded: servers verify through a Hasher.
func VerifyPassword(password, encoded string) (bool, error) {
	return argon2id.Verify(password, encoded)
}
