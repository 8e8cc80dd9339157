package swarm_test

import (
	"context"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/worldsrv/bot/swarm"
	"github.com/corrosion/corrosion/worldsrv/bot/worldtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// LoggedIn is called once, with the bots online, before the steady phase
// (a harness measures from there).
func TestRun_LoggedInBeforeSteady(t *testing.T) {
	addr := worldtest.Start(t)
	var calls []int
	var steadyAt time.Time
	rep, err := swarm.Run(context.Background(), swarm.Config{Addrs: []string{addr}, Bots: 3, Prefix: "hook",
		Password: "pw", Duration: 500 * time.Millisecond,
		LoggedIn: func(n int) { calls = append(calls, n); steadyAt = time.Now() }})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0] != 3 || rep.Logins != 3 {
		t.Fatalf("LoggedIn calls %v, report %+v", calls, rep)
	}
	if left := time.Since(steadyAt); left < 500*time.Millisecond {
		t.Fatalf("LoggedIn came %v before the end, want at least the steady phase's 500ms", left)
	}
}

// Bots on two worlds, each befriending the next (on the other world): the
// PMs start only once every sender sees its friend online, so none is
// answered "That player is currently offline." (a friend's status reaches
// the sender's world a tick or two after its FriendAdd; PMs sent before
// were answered offline).
func TestRun_TwoWorlds_PMsWaitForFriendsOnline(t *testing.T) {
	cl := worldtest.NewCluster(t)
	w10, w11 := cl.StartSpawn(t, 10), cl.StartSpawn(t, 11)
	rep, err := swarm.Run(context.Background(), swarm.Config{Addrs: []string{w10, w11}, Bots: 6, Prefix: "pmw",
		Password: "pw", Friends: 1, FriendsOnline: worldtest.Wait, PMRate: 20, Duration: 2 * time.Second, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Logins != 6 || rep.FriendsNotOnline != 0 || rep.PMsSent == 0 || rep.PMsOffline != 0 ||
		rep.SystemMsgs != 0 || rep.PMsReceived != rep.PMsSent {
		t.Fatalf("report %+v: want every friend online and every PM received, none offline", rep)
	}
}

// A world restart brings its players back at once: 300 existing accounts
// (friends with the next 3) reconnecting 100 at a time all get in, and none
// is answered 13 (could not complete). Before, logins waiting for a
// password-hashing slot for more than 5 s were answered 13, and so were
// those whose LoginCheck answer queued behind the storm's friend traffic
// for more than 5 ticks.
func TestRun_ReconnectStorm_ExistingAccountsAllGetIn(t *testing.T) {
	const accounts, inFlight = 300, 100
	cl := worldtest.NewCluster(t)
	w := cl.Spawn(t, 10, "--max-conns-per-ip", "1000")
	cfg := swarm.Config{Addrs: []string{w.Game}, Bots: accounts, Prefix: "storm", Password: "pw",
		Friends: 3, Duration: 100 * time.Millisecond, InFlight: inFlight, Seed: 1}
	created, err := swarm.Run(context.Background(), cfg)
	if err != nil || created.Logins != accounts {
		t.Fatalf("creating the accounts: %v, report %+v", err, created)
	}
	worldtest.WaitPlayers(t, w, 0)
	cfg.Friends = 0 // they have their friends already
	rep, err := swarm.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d existing accounts, %d in flight: %d in, %.1f/s, p50 %.0f ms, p99 %.0f ms, errors %v",
		accounts, inFlight, rep.Logins, rep.LoginsPerSec, rep.LoginP50Ms, rep.LoginP99Ms, rep.Errors)
	if rep.Logins != accounts || len(rep.Errors) != 0 {
		t.Fatalf("%d of %d existing accounts got in, errors %v: want all, none refused", rep.Logins, accounts, rep.Errors)
	}
}
