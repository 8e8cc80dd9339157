package ether_test

import (
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
)

func allowed(u uint64) proto.LoginCheckResponse {
	return proto.LoginCheckResponse{User37: u, Allowed: true}
}
func denied(u uint64) proto.LoginCheckResponse {
	return proto.LoginCheckResponse{User37: u, Allowed: false}
}

func TestLoginCheck_LockAndSessions(t *testing.T) {
	c := newTestCluster(t, "")
	w10 := connectWorld(t, c.start(10))
	w11 := connectWorld(t, c.start(11))
	const p = 1001
	steps := []struct {
		name string
		w    *world
		send []proto.Message
		want []proto.Message
	}{
		{"first check takes the lock", w10, []proto.Message{proto.LoginCheck{User37: p}}, []proto.Message{allowed(p)}},
		{"lock held: other node", w11, []proto.Message{proto.LoginCheck{User37: p}}, []proto.Message{denied(p)}},
		{"lock held: same node", w10, []proto.Message{proto.LoginCheck{User37: p}}, []proto.Message{denied(p)}},
		// PlayerLogin starts the session, releases the lock and answers nothing.
		{"session: other node", w10, []proto.Message{proto.PlayerLogin{User37: p, PID: 1}}, nil},
		{"denied while the session exists", w11, []proto.Message{proto.LoginCheck{User37: p}}, []proto.Message{denied(p)}},
		{"denied on the session's node", w10, []proto.Message{proto.LoginCheck{User37: p}}, []proto.Message{denied(p)}},
		{"logout", w10, []proto.Message{proto.PlayerLogout{User37: p}}, nil},
		// The lock was released by the session start: no wait for its expiry.
		{"allowed after logout", w11, []proto.Message{proto.LoginCheck{User37: p}}, []proto.Message{allowed(p)}},
	}
	for _, s := range steps {
		s.w.send(s.send...)
		s.w.expect(s.want...)
		if s.want == nil {
			s.w.sync(p)
		}
	}
	w10.quiet()
	w11.quiet()
}

func TestLoginCheck_LockExpires(t *testing.T) {
	c := newTestCluster(t, "")
	w10 := connectWorld(t, c.start(10))
	w11 := connectWorld(t, c.start(11))
	const p = 2002
	w10.send(proto.LoginCheck{User37: p}) // allowed, and the world never logs the player in
	w10.expect(allowed(p))
	w11.send(proto.LoginCheck{User37: p})
	w11.expect(denied(p))
	taken := time.Now()
	for {
		w11.send(proto.LoginCheck{User37: p})
		if m := w11.next(); m == allowed(p) {
			break
		}
		if time.Since(taken) > wait {
			t.Fatal("login lock never expired")
		}
		time.Sleep(100 * time.Millisecond) // polling the world protocol itself: one check per 100ms
	}
	if d := time.Since(taken); d < 900*time.Millisecond || d > 4*time.Second {
		t.Fatalf("a 1s lock expired after %v", d)
	}
}

func TestLoginCheck_FiftyConcurrentChecksOverThreeNodes_OneAllowed(t *testing.T) {
	c := newTestCluster(t, "")
	worlds := []*world{connectWorld(t, c.start(10)), connectWorld(t, c.start(11)), connectWorld(t, c.start(12))}
	const p = 3003
	var wg sync.WaitGroup
	for i, w := range worlds {
		n := 17
		if i == 2 {
			n = 16
		}
		wg.Add(1)
		go func(w *world, n int) {
			defer wg.Done()
			for j := 0; j < n; j++ {
				if err := proto.WriteFrame(w.conn, proto.LoginCheck{User37: p}); err != nil {
					t.Error(err)
				}
			}
		}(w, n)
	}
	wg.Wait()
	allowedN, deniedN := 0, 0
	for i, w := range worlds {
		n := 17
		if i == 2 {
			n = 16
		}
		for j := 0; j < n; j++ {
			switch m := w.next(); m {
			case allowed(p):
				allowedN++
			case denied(p):
				deniedN++
			default:
				t.Fatalf("unexpected %#v", m)
			}
		}
	}
	if allowedN != 1 || deniedN != 49 {
		t.Fatalf("allowed %d, denied %d; want 1 and 49", allowedN, deniedN)
	}
}
