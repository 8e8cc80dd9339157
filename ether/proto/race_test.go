//go:build race

package proto

// raceEnabled: under the race detector sync.Pool drops items at random, so
// pooled paths allocate.
const raceEnabled = true
