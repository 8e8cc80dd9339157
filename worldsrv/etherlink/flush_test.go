package etherlink_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
)

// flushAsync runs Flush with a deadline of d on its own goroutine.
func flushAsync(c *etherlink.Client, d time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		done <- c.Flush(ctx)
	}()
	return done
}

// notYet fails if done has a result.
func notYet(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("Flush returned (%v) %s", err, what)
	default:
	}
}

// Flush returns once every save sent has been acknowledged, counting the
// acknowledgements itself, and drains (and discards) the inbound queue
// while it waits.
func TestClient_Flush_WaitsForEveryAcknowledgement(t *testing.T) {
	p := newPeer(t)
	c := startClient(t, etherlink.Config{Addr: p.addr(), NodeID: 10, InEvents: 2})
	s := p.accept()
	s.expect(proto.WorldRegister{NodeID: 10})
	expectKind(t, c, etherlink.Connected)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatalf("Flush with nothing sent: %v", err)
	}
	for u := range uint64(3) {
		if !c.Send(proto.PlayerSaveRequest{User37: u, SaveData: []byte("{}")}) {
			t.Fatal("Send failed")
		}
	}
	c.Send(proto.PlayerLogout{User37: 1}) // not a save: nothing to acknowledge
	s.expect(proto.PlayerSaveRequest{User37: 0, SaveData: []byte("{}")}, proto.PlayerSaveRequest{User37: 1, SaveData: []byte("{}")},
		proto.PlayerSaveRequest{User37: 2, SaveData: []byte("{}")}, proto.PlayerLogout{User37: 1})
	done := flushAsync(c, wait)
	// More than the inbound queue holds, before the acknowledgements: Flush
	// drains them, or the reader would wait for room for ever.
	for range 5 {
		s.send(proto.FriendListComplete{Target37: 9})
	}
	s.send(proto.PlayerSaveAck{User37: 0, Success: true}, proto.PlayerSaveAck{User37: 1, Success: false})
	poll.True(t, wait, "two acknowledged", func() bool { return c.Stats().Unacked == 1 })
	notYet(t, done, "with one save unacknowledged")
	s.send(proto.PlayerSaveAck{User37: 2, Success: true})
	if err := <-done; err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// Flush gives up when ctx ends or the link goes down, saying how many
// saves are unacknowledged.
func TestClient_Flush_GivesUp(t *testing.T) {
	for _, tt := range []struct {
		name string
		end  func(s *side)
		want string
	}{
		{"deadline", func(*side) {}, "context deadline exceeded"},
		{"link down", func(s *side) { s.nc.Close() }, "link down"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newPeer(t)
			c := startClient(t, etherlink.Config{Addr: p.addr(), NodeID: 10, Backoff: fastBackoff})
			s := p.accept()
			expectKind(t, c, etherlink.Connected)
			save := func(u uint64) proto.PlayerSaveRequest {
				return proto.PlayerSaveRequest{User37: u, SaveData: []byte("x")}
			}
			c.Send(save(1))
			c.Send(save(2))
			s.expect(proto.WorldRegister{NodeID: 10}, save(1), save(2))
			s.send(proto.PlayerSaveAck{User37: 1, Success: true})
			done := flushAsync(c, 300*time.Millisecond)
			tt.end(s)
			err := <-done
			if err == nil || !strings.Contains(err.Error(), "1 saves unacknowledged") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Flush = %v, want 1 unacknowledged and %q", err, tt.want)
			}
			if tt.name == "deadline" && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Flush = %v, want it to wrap the deadline", err)
			}
		})
	}
}
