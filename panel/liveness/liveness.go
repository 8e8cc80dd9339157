// Package liveness is the panel's one rule for a peer that reports at a
// steady interval: it is silent, and shown offline or down, once nothing
// has been heard from it for Factor intervals. Hosts' heartbeats
// (panel/store) and ether nodes' health snapshots (panel/social) both use
// it; each clamps its observed interval to its own bounds first.
package liveness

import "time"

// Factor is how many intervals of silence make a peer silent.
const Factor = 3

// Deadline is when a peer last heard at last, reporting every interval,
// turns silent.
func Deadline(last time.Time, interval time.Duration) time.Time {
	return last.Add(Factor * interval)
}

// Silent reports whether a peer last heard at last, reporting every
// interval, is silent at now: more than Factor intervals have passed.
func Silent(last time.Time, interval time.Duration, now time.Time) bool {
	return now.After(Deadline(last, interval))
}
