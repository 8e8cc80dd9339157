package account

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's cost parameters, written into every hash so that
// a hash stays verifiable after the defaults change.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
}

// DefaultParams: OWASP's minimum for argon2id (m=19 MiB, t=2, p=1), chosen
// for a login storm on 2 cores. One hash takes about 23 ms of one core on
// the 2-core build machine (BenchmarkHash, 2026-11), so the two cores verify
// roughly 80 logins a second, and
// with MaxConcurrentHashes = GOMAXPROCS = 2 the hashes in flight hold at
// most 2 × 19 MiB however many clients connect at once. p=1 because
// parallelism inside one hash only steals the core another login would use.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
)

// Password length limits in bytes: the classic client's limit of 20.
const (
	MinPasswordLen = 1
	MaxPasswordLen = 20
)

var b64 = base64.RawStdEncoding

// hashPassword returns the PHC string of password under p with a fresh
// random salt: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>.
func hashPassword(password string, p Params) (string, error) {
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

var errBadPHC = errors.New("not an argon2id PHC string")

// Bounds on parameters read back from the database, so a corrupt or
// hostile row cannot make one verification allocate gigabytes.
const (
	maxPHCMemory = 1 << 20 // KiB: 1 GiB
	maxPHCTime   = 64
)

func parsePHC(s string) (phc, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return phc{}, errBadPHC
	}
	if parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return phc{}, fmt.Errorf("%w: version %q", errBadPHC, parts[2])
	}
	var p Params
	n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads)
	if err != nil || n != 3 || parts[3] != fmt.Sprintf("m=%d,t=%d,p=%d", p.Memory, p.Time, p.Threads) || p.Memory < 8*uint32(max(p.Threads, 1)) || p.Memory > maxPHCMemory ||
		p.Time < 1 || p.Time > maxPHCTime || p.Threads < 1 {
		return phc{}, fmt.Errorf("%w: parameters %q", errBadPHC, parts[3])
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return phc{}, fmt.Errorf("%w: salt", errBadPHC)
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return phc{}, fmt.Errorf("%w: hash", errBadPHC)
	}
	return phc{params: p, salt: salt, key: key}, nil
}

// verifyPassword reports whether password matches the PHC string encoded,
// comparing in constant time. A malformed string is an error, never a match.
func verifyPassword(password, encoded string) (bool, error) {
	h, err := parsePHC(encoded)
	if err != nil {
		return false, err
	}
	key := argon2.IDKey([]byte(password), h.salt, h.params.Time, h.params.Memory, h.params.Threads, uint32(len(h.key)))
	return subtle.ConstantTimeCompare(key, h.key) == 1, nil
}
