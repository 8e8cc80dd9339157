//go:build linux

package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// keepaliveEvery is how often a waiting player sends Keepalive, well inside
// the world's 30 s idle limit.
const keepaliveEvery = 5 * time.Second

// scenarioPlayer is one game client over TCP for the scenario: a goroutine reads
// and decodes every frame into a channel, so a wait can keep the
// connection alive (Keepalive) while it reads.
type scenarioPlayer struct {
	t      *testing.T
	name   string
	nc     net.Conn
	frames chan proto.WorldMessage // closed when the connection ends
	err    error                   // why it ended; read only after frames closes
	seen   []string                // the last frames read, for failure messages
}

// connectPlayer dials a world's game port as name.
func connectPlayer(t *testing.T, addr, name string) *scenarioPlayer {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatalf("%s: dial %s: %v", name, addr, err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	p := &scenarioPlayer{t: t, name: name, nc: nc, frames: make(chan proto.WorldMessage, 256)}
	go p.read()
	return p
}

func (p *scenarioPlayer) read() {
	defer close(p.frames)
	r := bufio.NewReader(p.nc)
	for {
		payload, err := proto.ReadFrame(r, nil) // a fresh buffer: messages alias it
		if err != nil {
			p.err = err
			return
		}
		m, err := proto.DecodeWorld(payload)
		if err != nil {
			p.err = fmt.Errorf("decode: %w", err)
			return
		}
		p.frames <- m
	}
}

func (p *scenarioPlayer) send(m proto.Message) {
	p.t.Helper()
	if err := proto.WriteFrame(p.nc, m); err != nil {
		p.t.Fatalf("%s: send %T: %v", p.name, m, err)
	}
}

// waitFor reads frames until ok accepts one and returns it; it fails the
// test, naming what it waited for, on a deadline or a closed connection.
func (p *scenarioPlayer) waitFor(what string, ok func(proto.WorldMessage) bool) proto.WorldMessage {
	p.t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(keepaliveEvery)
	defer tick.Stop()
	for {
		select {
		case m, open := <-p.frames:
			if !open {
				p.t.Fatalf("%s: connection ended (%v) while waiting for %s; last frames: %s",
					p.name, p.err, what, strings.Join(p.seen, ", "))
			}
			p.remember(m)
			if ok(m) {
				return m
			}
		case <-tick.C:
			p.send(proto.Keepalive{})
		case <-deadline.C:
			p.t.Fatalf("%s: no %s within %v; last frames: %s", p.name, what, wait, strings.Join(p.seen, ", "))
		}
	}
}

func (p *scenarioPlayer) remember(m proto.WorldMessage) {
	const keep = 12
	p.seen = append(p.seen, fmt.Sprintf("%T%+v", m, m))
	if len(p.seen) > keep {
		p.seen = p.seen[len(p.seen)-keep:]
	}
}

// login sends Login and returns the LoginResponse.
func (p *scenarioPlayer) login() proto.LoginResponse {
	p.t.Helper()
	p.send(proto.Login{Username: p.name, Password: "secret"})
	m := p.waitFor("LoginResponse", func(m proto.WorldMessage) bool {
		_, ok := m.(*proto.LoginResponse)
		return ok
	})
	return *m.(*proto.LoginResponse)
}

// loginOn logs in and wants success on node.
func (p *scenarioPlayer) loginOn(node uint8) {
	p.t.Helper()
	if r := p.login(); r.Code != proto.LoginOK || r.Node != node {
		p.t.Fatalf("%s: login answered %+v (%s), want success on node %d", p.name, r, r.Code, node)
	}
}

// waitFriend waits for FriendStatus(friend, node).
func (p *scenarioPlayer) waitFriend(friend string, node uint8) {
	p.t.Helper()
	id := mustName37(p.t, friend)
	what := fmt.Sprintf("FriendStatus(%s, node %d)", friend, node)
	if node == 0 {
		what = fmt.Sprintf("FriendStatus(%s, node 0: offline)", friend)
	}
	p.waitFor(what, func(m proto.WorldMessage) bool {
		fs, ok := m.(*proto.FriendStatus)
		return ok && fs.Name37 == id && fs.Node == node
	})
}

// waitClosed waits until the world closes the connection.
func (p *scenarioPlayer) waitClosed(what string) {
	p.t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case m, open := <-p.frames:
			if !open {
				return
			}
			p.remember(m)
		case <-deadline:
			p.t.Fatalf("%s: connection still open %v after %s", p.name, wait, what)
		}
	}
}

func mustName37(t *testing.T, name string) uint64 {
	t.Helper()
	id, err := proto.EncodeName(name)
	if err != nil {
		t.Fatalf("name %q: %v", name, err)
	}
	return id
}

// etherChild finds the running `ether run` whose parent is the process
// parent, by /proc: 0 and an error while there is none (or more than one).
func etherChild(parent int) (int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	var found []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) || parentPID(pid) != parent {
			continue
		}
		argv := procArgs(pid)
		if len(argv) >= 2 && filepath.Base(argv[0]) == "ether" && argv[1] == "run" {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("%d `ether run` children of %d (%v)", len(found), parent, found)
	}
	return found[0], nil
}

// parentPID is pid's parent from /proc/pid/stat, -1 when unreadable.
func parentPID(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:]) // state, ppid, ...
	if len(f) < 2 {
		return -1
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return n
}

func procArgs(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}
