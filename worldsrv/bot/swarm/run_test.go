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
