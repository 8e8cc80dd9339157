package swarm_test

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/internal/argon2id"
	"github.com/corrosion/corrosion/worldsrv/account"
	"github.com/corrosion/corrosion/worldsrv/proto"

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

// A world restart brings its players back at once: 100 existing accounts
// reconnecting, all in flight, all get in and none is answered 13 (could
// not complete). Before, a login that waited more than 5 s for one of the
// world's hashing slots (one per core) was answered 13: here every hash
// takes at least 150 ms (the accounts' stored cost is raised until it
// does), so the last of the 100 waits about 50 hashes, 7.5 s or more. The
// bots wait for their answer as a patient client would (3 minutes: under
// -race a hash takes far longer).
func TestRun_ReconnectStorm_ExistingAccountsAllGetIn(t *testing.T) {
	const accounts, password = 100, "pw"
	cl := worldtest.NewCluster(t)
	w := cl.Spawn(t, 10, "--max-conns-per-ip", "1000")
	createAccounts(t, cl.DSN, "storm", accounts, slowHash(t, password, 150*time.Millisecond))
	rep, err := swarm.Run(context.Background(), swarm.Config{Addrs: []string{w.Game}, Bots: accounts,
		Prefix: "storm", Password: password, Duration: 100 * time.Millisecond, InFlight: accounts,
		LoginTimeout: 3 * time.Minute, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d existing accounts, all in flight: %d in, %.1f/s, p50 %.0f ms, p99 %.0f ms, errors %v",
		accounts, rep.Logins, rep.LoginsPerSec, rep.LoginP50Ms, rep.LoginP99Ms, rep.Errors)
	if rep.Logins != accounts || len(rep.Errors) != 0 {
		t.Fatalf("%d of %d existing accounts got in, errors %v: want all, none refused", rep.Logins, accounts, rep.Errors)
	}
}

// slowHash is password's argon2id PHC string at the world's parameters
// with more passes, enough that one hash takes at least least here (at
// most argon2id.MaxTime passes).
func slowHash(t *testing.T, password string, least time.Duration) string {
	t.Helper()
	p := account.DefaultParams
	began := time.Now()
	if _, err := argon2id.Hash(password, p); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took < least {
		p.Time = uint32(min(math.Ceil(float64(p.Time)*float64(least)/float64(took)), argon2id.MaxTime))
	}
	h, err := argon2id.Hash(password, p)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// createAccounts stores n accounts prefix0… with the PHC string hash in
// the world database dsn (migrated by the world).
func createAccounts(t *testing.T, dsn, prefix string, n int, hash string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for i := range n {
		user37, err := proto.EncodeName(prefix + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO world_accounts (user37, name, password_hash) VALUES ($1, $2, $3)",
			int64(user37), proto.DecodeName(user37), hash); err != nil {
			t.Fatal(err)
		}
	}
}
