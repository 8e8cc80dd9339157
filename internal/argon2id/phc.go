// Package argon2id hashes passwords with argon2id into PHC strings, verifies
// them in constant time, and bounds the hashes in flight (Limiter). It is a
// building block without domain logic, shared by panel/auth and
// worldsrv/account; it imports none of the project's components.
package argon2id

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's cost parameters, written into every hash so that a
// hash stays verifiable after the defaults change.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
}

// DefaultParams: OWASP's minimum for argon2id (m=19 MiB, t=2, p=1). One
// hash takes about 23 ms of one core on the 2-core build machine, so with
// the hashes in flight bounded by GOMAXPROCS they hold at most GOMAXPROCS ×
// 19 MiB however many logins arrive. p=1 because parallelism inside one hash
// only steals the core another login would use.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
)

// Bounds on parameters read back from storage, so a corrupt or hostile row
// cannot make one verification allocate gigabytes.
const (
	MaxMemory = 1 << 20 // KiB: 1 GiB
	MaxTime   = 64
)

var b64 = base64.RawStdEncoding

// ErrBadHash is returned for a stored hash that is not an argon2id PHC
// string this package can verify.
var ErrBadHash = errors.New("not an argon2id PHC string")

// Hash returns the PHC string of password under p with a fresh random salt:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>. It is not bounded: servers
// hash inside a Limiter.
func Hash(password string, p Params) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("read salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// PHC is a parsed argon2id PHC string.
type PHC struct {
	Params Params
	Salt   []byte
	Key    []byte
}

// ParsePHC parses an argon2id PHC string of the current version. It fails
// with ErrBadHash for anything else, including parameters outside
// MaxMemory and MaxTime, a salt under 8 bytes or a key outside 16–64 bytes.
func ParsePHC(s string) (PHC, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return PHC{}, ErrBadHash
	}
	if parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return PHC{}, fmt.Errorf("%w: version %q", ErrBadHash, parts[2])
	}
	var p Params
	n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads)
	if err != nil || n != 3 || parts[3] != fmt.Sprintf("m=%d,t=%d,p=%d", p.Memory, p.Time, p.Threads) ||
		p.Threads < 1 || p.Memory < 8*uint32(p.Threads) || p.Memory > MaxMemory || p.Time < 1 || p.Time > MaxTime {
		return PHC{}, fmt.Errorf("%w: parameters %q", ErrBadHash, parts[3])
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return PHC{}, fmt.Errorf("%w: salt", ErrBadHash)
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return PHC{}, fmt.Errorf("%w: hash", ErrBadHash)
	}
	return PHC{Params: p, Salt: salt, Key: key}, nil
}

// Verify reports whether password matches the PHC string encoded, comparing
// in constant time. A malformed string is an error (ErrBadHash), never a
// match. It is not bounded: servers verify inside a Limiter.
func Verify(password, encoded string) (bool, error) {
	h, err := ParsePHC(encoded)
	if err != nil {
		return false, err
	}
	key := argon2.IDKey([]byte(password), h.Salt, h.Params.Time, h.Params.Memory, h.Params.Threads, uint32(len(h.Key)))
	return subtle.ConstantTimeCompare(key, h.Key) == 1, nil
}
