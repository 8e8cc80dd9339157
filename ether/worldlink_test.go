package ether_test

import (
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
)

// A world link that drops while a PlayerLogin loads the player's lists
// leaves a session of a lost link: it must end after the link grace, as
// it would had the load finished before the drop, and not lock the player
// out of every world. The load is held on the locked friends table until
// the drop has orphaned (and ended) another session of that link.
func TestWorldLinkDroppedDuringLogin_SessionEndsAfterGrace(t *testing.T) {
	c := newTestCluster(t, "")
	n10 := c.start(10, func(cfg *ether.Config) { cfg.LinkGrace = time.Second })
	w10 := connectWorld(t, n10)
	w11 := connectWorld(t, c.start(11))
	const a, x, b = 101, 102, 103 // a and x on node 10; b (11) lists x
	c.friends(b, x)
	w11.login(b)
	w10.login(x)
	w11.expect(ufl(b, x, 10))

	release := c.lockTable("friends")
	w10.send(proto.LoginCheck{User37: a})
	w10.expect(allowed(a))
	w10.send(proto.PlayerLogin{User37: a, PID: 1})
	poll.True(t, wait, "a's load waits for the friends table", func() bool {
		return c.count("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'friends'::regclass") > 0
	})
	w10.disconnect()
	w11.expect(ufl(b, x, 0)) // the drop orphaned x, which ended after the grace
	release()

	poll.True(t, wait, "a's session ends", func() bool { return n10.node.Health().Sessions == 0 })
	w11.send(proto.LoginCheck{User37: a})
	w11.expect(allowed(a))
}
