package ether_test

import (
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/ether/proto"
)

// longLock makes the login lock outlive any test: a check allowed after a
// release was allowed by the release, not by the lock's expiry.
func longLock(c *ether.Config) { c.LeaseTTL = 30 * time.Second }

func TestFeatureQuery_AnnouncesLoginRelease(t *testing.T) {
	c := newTestCluster(t, "")
	w := connectWorld(t, c.start(10))
	w.send(proto.FeatureQuery{})
	w.expect(proto.Features{Mask: proto.FeatureLoginRelease})
	w.quiet()
}

// A wrong password after an early LoginCheck: the world gives the lock
// back and the player can log in at once, anywhere, not 30 s later.
func TestLoginRelease_FreesTheLockAtOnce(t *testing.T) {
	c := newTestCluster(t, "")
	w10 := connectWorld(t, c.start(10, longLock))
	w11 := connectWorld(t, c.start(11, longLock))
	const p = 3003
	w10.send(proto.LoginCheck{User37: p}, proto.LoginRelease{User37: p})
	w10.expect(allowed(p))
	w10.sync(p) // the release has run
	w11.send(proto.LoginCheck{User37: p})
	w11.expect(allowed(p))
	w10.send(proto.LoginCheck{User37: p})
	w10.expect(denied(p)) // w11 holds it now
	w10.quiet()
	w11.quiet()
}

// A release is honoured only by the node whose check took the lock, and
// only before PlayerLogin used it: never another world's lock, never a
// running session's.
func TestLoginRelease_OnlyALockThisNodeHolds(t *testing.T) {
	c := newTestCluster(t, "")
	w10 := connectWorld(t, c.start(10, longLock))
	w11 := connectWorld(t, c.start(11, longLock))
	const p, q = 4004, 4005
	w10.send(proto.LoginCheck{User37: p})
	w10.expect(allowed(p))
	w11.send(proto.LoginRelease{User37: p}) // not w11's lock
	w11.sync(p)
	w11.send(proto.LoginCheck{User37: p})
	w11.expect(denied(p))

	w10.login(q)
	w10.send(proto.LoginRelease{User37: q}) // the session runs: nothing to release
	w10.sync(q)
	w11.send(proto.LoginCheck{User37: q})
	w11.expect(denied(q))
	w10.send(proto.LoginCheck{User37: q})
	w10.expect(denied(q))
	w10.quiet()
	w11.quiet()
}
