// Package poll waits for a condition with a deadline, so tests never sleep
// for a guessed duration. Imported only by tests.
package poll

import (
	"testing"
	"time"
)

// Interval between checks.
const Interval = 10 * time.Millisecond

// Until calls cond until it returns nil or timeout passes; then it fails the
// test with the last error.
func Until(t testing.TB, timeout time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("poll: not true after %v: %v", timeout, err)
		}
		time.Sleep(Interval)
	}
}

// True is Until for a boolean condition with a description.
func True(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	Until(t, timeout, func() error {
		if cond() {
			return nil
		}
		return errString(what)
	})
}

type errString string

func (e errString) Error() string { return string(e) }
