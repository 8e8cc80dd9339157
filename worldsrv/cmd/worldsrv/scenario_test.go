//go:build linux

package main

import (
	"errors"
	"fmt"
	"strconv"
	"syscall"
	"testing"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// Node ids of the scenario's two worlds (world 1 and world 2).
const (
	node1 uint8 = 10
	node2 uint8 = 11
)

// startSpawningWorld runs worldsrv as node with its own ether sidecar
// (--ether spawn) on the shared NATS and database.
func startSpawningWorld(t *testing.T, node uint8, nats string, db []string) *proc {
	t.Helper()
	args := append([]string{"--node-id", strconv.Itoa(int(node)), "--ether", "spawn",
		"--ether-port", strconv.Itoa(natstest.FreePort(t)),
		"--ether-bin", testbin.Build(t, "./ether/cmd/ether"), "--cluster", nats}, db...)
	return start(t, args...)
}

// etherOf waits until world p has exactly one live `ether run` child and
// returns its pid.
func etherOf(t *testing.T, p *proc, what string) int {
	t.Helper()
	var pid int
	poll.Until(t, wait, func() error {
		var err error
		pid, err = etherChild(p.cmd.Process.Pid)
		if err != nil {
			return fmt.Errorf("ether sidecar %s: %w", what, err)
		}
		return nil
	})
	return pid
}

// The seed's test scenario end to end, against the real binaries: two
// worlds (nodes 10 and 11) each spawning its ether sidecar, one NATS, one
// Postgres, every step seen from the game clients.
func TestScenario_TwoWorldsSocial(t *testing.T) {
	ns := natstest.Start(t)
	db := dbFlags(t, pgtest.NewDatabase(t))
	w1 := startSpawningWorld(t, node1, ns.URL(), db)
	w2 := startSpawningWorld(t, node2, ns.URL(), db)

	a := connectPlayer(t, w1.game, "alice")
	a.loginOn(node1)
	b := connectPlayer(t, w2.game, "bob")
	b.loginOn(node2)

	a.send(proto.FriendAdd{Name: "bob"})
	a.waitFriend("bob", node2)
	b.send(proto.FriendAdd{Name: "alice"})
	b.waitFriend("alice", node1)

	a.send(proto.PrivateMessage{Name: "bob", Text: "hello from world 1"})
	b.waitFor("PrivateMessageIn from alice", func(m proto.WorldMessage) bool {
		pm, ok := m.(*proto.PrivateMessageIn)
		return ok && pm.From37 == mustName37(t, "alice") && pm.Text == "hello from world 1"
	})

	b.send(proto.ChatSettings{Public: proto.ChatOn, Private: proto.ChatOff, Trade: proto.ChatOn})
	a.waitFriend("bob", 0)
	b.send(proto.ChatSettings{Public: proto.ChatOn, Private: proto.ChatOn, Trade: proto.ChatOn})
	a.waitFriend("bob", node2)

	b.send(proto.Logout{})
	b.waitFor("LoggedOut (requested)", func(m proto.WorldMessage) bool {
		lo, ok := m.(*proto.LoggedOut)
		return ok && lo.Reason == proto.LogoutRequested
	})
	b.waitClosed("LoggedOut")
	a.waitFriend("bob", 0)
	b = connectPlayer(t, w2.game, "bob")
	b.loginOn(node2)
	a.waitFriend("bob", node2)

	sidecarCrash(t, w2, a)
	doubleLogins(t, w1, w2)
	kill9LeavesNoSidecar(t, w2)
}

// sidecarCrash kills world 2's ether: alice sees bob offline, the world
// restarts its sidecar, and bob comes back online.
func sidecarCrash(t *testing.T, w2 *proc, a *scenarioPlayer) {
	t.Helper()
	old := etherOf(t, w2, "before the crash")
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 ether %d: %v", old, err)
	}
	a.waitFriend("bob", 0)
	poll.Until(t, wait, func() error {
		pid, err := etherChild(w2.cmd.Process.Pid)
		if err != nil {
			return err
		}
		if pid == old {
			return errors.New("ether not restarted yet")
		}
		return nil
	})
	a.waitFriend("bob", node2)
}

// doubleLogins: bob, online on world 2, is refused on world 1 and on
// world 2 again with "already logged in".
func doubleLogins(t *testing.T, w1, w2 *proc) {
	t.Helper()
	for _, w := range []struct {
		name string
		p    *proc
	}{{"world 1 (another world)", w1}, {"world 2 (the same world)", w2}} {
		again := connectPlayer(t, w.p.game, "bob")
		if r := again.login(); r.Code != proto.LoginAlreadyOnline {
			t.Fatalf("bob's second login on %s: %+v (%s), want code %d (%s)",
				w.name, r, r.Code, proto.LoginAlreadyOnline, proto.LoginAlreadyOnline)
		}
	}
}

// kill9LeavesNoSidecar: kill -9 of world 2 leaves no ether behind.
func kill9LeavesNoSidecar(t *testing.T, w2 *proc) {
	t.Helper()
	pid := etherOf(t, w2, "before kill -9 of world 2")
	if err := w2.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-w2.exited
	poll.True(t, wait, "world 2's ether (pid "+strconv.Itoa(pid)+") gone after kill -9 of its world",
		func() bool { return !alive(pid) })
}
