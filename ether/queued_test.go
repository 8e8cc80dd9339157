package ether_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/ether/proto"
)

// lockTable holds an exclusive lock on table until release: queries of it
// wait, which holds a player's serial queue at a known step.
func (c *testCluster) lockTable(table string) (release func()) {
	c.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.dsn)
	if err != nil {
		c.t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE "+pgx.Identifier{table}.Sanitize()+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		c.t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			_ = tx.Rollback(ctx)
			conn.Close(ctx)
		}
	}
	c.t.Cleanup(release)
	return release
}

// A RefreshAll right behind a PlayerLogout must not bring the player back:
// the refresh queued for the old session runs after the logout ended it.
// The player's queue is held on a PlayerLoadRequest (its table locked) so
// that the logout is still queued when RefreshAll is handled.
func TestRefreshAllBehindLogout_NoGhostOnline(t *testing.T) {
	c := newTestCluster(t, "")
	w10 := connectWorld(t, c.start(10))
	w11 := connectWorld(t, c.start(11))
	const a, b, x, z = 91, 92, 93, 94 // a (10) lists b (11); b lists a and x (10)
	c.friends(a, b)
	c.friends(b, a, x)
	w11.login(b)
	w10.login(a)
	w11.expect(ufl(b, a, 10))

	release := c.lockTable("player_saves")
	w10.send(proto.PlayerLoadRequest{User37: a}, proto.PlayerLogout{User37: a}, proto.RefreshAll{}, proto.LoginCheck{User37: z})
	w10.expect(allowed(z)) // RefreshAll handled: its work for a waits behind the logout
	release()
	w10.expect(proto.PlayerLoadResponse{User37: a, SaveData: []byte{}})
	w10.sync(a) // nothing for a: no friend frames re-sent after the logout
	w11.expect(ufl(b, a, 0))
	// x's presence is broadcast after anything a's refresh could have
	// sent, on the same subject: b must see a stay offline.
	w10.login(x)
	w11.expect(ufl(b, x, 10))
	w11.quiet()
	w10.quiet()
}
