// Package worldtest starts a real worldsrv for the bot tests (imported only
// by tests).
package worldtest

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/healthprobe"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// Wait bounds anything crossing processes.
const Wait = 60 * time.Second

// World is a running worldsrv.
type World struct {
	Game string // game address host:port
	HTTP string // HTTP base URL (http://host:port)
	PID  int    // the worldsrv process
}

// Start runs a real worldsrv (node 10, ether off, a fresh database)
// on free ports with extra flags, waits for /ready and returns its game address. The test
// needs pgtest.Main in its TestMain.
func Start(t testing.TB, extra ...string) string {
	t.Helper()
	return StartWith(t, pgtest.NewDatabase(t), extra...)
}

// StartWith is Start on the database dsn; extra flags override the
// defaults (the last of a repeated flag wins), e.g. --node-id 11.
func StartWith(t testing.TB, dsn string, extra ...string) string {
	t.Helper()
	return Run(t, dsn, extra...).Game
}

// Run is StartWith returning the whole World; the process is killed when
// the test ends.
func Run(t testing.TB, dsn string, extra ...string) World {
	t.Helper()
	db, err := flagval.ParseDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	game, web := natstest.FreePort(t), natstest.FreePort(t)
	cmd := exec.Command(testbin.Build(t, "./worldsrv/cmd/worldsrv"), "--node-id", "10", "--ether", "off",
		"--game-listen", "127.0.0.1:"+strconv.Itoa(game), "--http-listen", "127.0.0.1:"+strconv.Itoa(web),
		"--rcon-listen", "127.0.0.1:"+strconv.Itoa(natstest.FreePort(t)))
	cmd.Args = append(cmd.Args, extra...)
	cmd.Env = append(testbin.Env(), db.Env()...)
	out, exited := testbin.Start(t, "worldsrv", cmd)
	w := World{Game: "127.0.0.1:" + strconv.Itoa(game), HTTP: "http://127.0.0.1:" + strconv.Itoa(web), PID: cmd.Process.Pid}
	poll.Until(t, Wait, func() error {
		select {
		case <-exited:
			t.Fatalf("worldsrv exited early: %v\n%s", cmd.ProcessState, out.String())
		default:
		}
		return healthprobe.Check(context.Background(), w.HTTP+"/ready")
	})
	return w
}

// Cluster is the shared part of worlds that spawn their ether sidecars:
// one NATS and one database.
type Cluster struct {
	DSN   string
	NATS  string
	Ether string // the ether binary
}

// NewCluster starts an embedded NATS and makes a database.
func NewCluster(t testing.TB) Cluster {
	t.Helper()
	return Cluster{DSN: pgtest.NewDatabase(t), NATS: natstest.Start(t).URL(),
		Ether: testbin.Build(t, "./ether/cmd/ether")}
}

// StartSpawn runs world node (e.g. 10) in c with --ether spawn and returns
// its game address.
func (c Cluster) StartSpawn(t testing.TB, node int, extra ...string) string {
	t.Helper()
	return c.Spawn(t, node, extra...).Game
}

// Spawn is StartSpawn returning the whole World.
func (c Cluster) Spawn(t testing.TB, node int, extra ...string) World {
	t.Helper()
	return Run(t, c.DSN, append([]string{"--node-id", strconv.Itoa(node), "--ether", "spawn",
		"--ether-port", strconv.Itoa(natstest.FreePort(t)), "--ether-bin", c.Ether, "--cluster", c.NATS}, extra...)...)
}
