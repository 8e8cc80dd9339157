package supervise

import "time"

// Clock is the time source of the supervisor's policy: the crash backoff,
// the stop timeout and the readiness timeout run on its timers, and crash
// times, uptimes and pending restarts are read from it. Tests inject a
// fake one so a policy test never waits in real time.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f on its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not run yet; it reports whether it
	// did so.
	Stop() bool
}

// realClock is the system clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
