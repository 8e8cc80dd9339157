package account

import "github.com/corrosion/corrosion/internal/argon2id"

// Params are argon2id's cost parameters, written into every hash so that
// a hash stays verifiable after the defaults change.
type Params = argon2id.Params

// DefaultParams: OWASP's minimum for argon2id (m=19 MiB, t=2, p=1), chosen
// for a login storm on 2 cores; internal/argon2id's, shared with the panel. One
// hash takes about 23 ms of one core on the 2-core build machine
// (internal/argon2id's BenchmarkHash, 2026-11), so the two cores verify
// roughly 80 logins a second, and
// with MaxConcurrentHashes = GOMAXPROCS = 2 the hashes in flight hold at
// most 2 × 19 MiB however many clients connect at once. p=1 because
// parallelism inside one hash only steals the core another login would use.
var DefaultParams = argon2id.DefaultParams

// Password length limits in bytes: the classic client's limit of 20.
const (
	MinPasswordLen = 1
	MaxPasswordLen = 20
)
