package cluster

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"
)

// Join makes user reachable on its player subject: presence queries, PMs
// and login checks for it are answered by this node from now on. The
// subscription outlives NATS outages (the client renews it).
func (m *Member) Join(user uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.subs[user]; ok {
		return nil
	}
	sub, err := m.nc.ChanSubscribe(m.subj.player(user), m.in)
	if err != nil {
		return fmt.Errorf("join player %d: %w", user, err)
	}
	m.subs[user] = sub
	return nil
}

// Leave stops answering for user.
func (m *Member) Leave(user uint64) {
	m.mu.Lock()
	sub := m.subs[user]
	delete(m.subs, user)
	m.mu.Unlock()
	if sub != nil {
		_ = sub.Unsubscribe()
	}
}

// Joined is the number of players this node answers for.
func (m *Member) Joined() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.subs)
}

// work answers player-subject requests until ctx ends. Requests to
// different players are independent; a sender waits for each PM's answer
// before the next, so one worker pool keeps every order that matters.
func (m *Member) work(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case msg := <-m.in:
			m.serve(msg)
		}
	}
}

func (m *Member) serve(msg *nats.Msg) {
	user, ok := m.subj.userOf(msg.Subject)
	if !ok {
		return
	}
	req, err := parseRequest(msg.Data)
	if err != nil {
		m.log.Debug("dropping malformed player request", "subject", msg.Subject, "err", err)
		return
	}
	var reply []byte
	switch req.kind {
	case kindQuery:
		if node, ok := m.h.PresenceFor(user, req.asker); ok {
			reply = []byte{replyResult, node}
		} else {
			reply = []byte{replyNoSession}
		}
	case kindPM:
		reply = []byte{replyResult, byte(m.h.DeliverPM(user, req.pm))}
	case kindPing:
		if m.h.HasSession(user) {
			reply = []byte{replyYes}
		} else {
			reply = []byte{replyNoSession}
		}
	case kindPresence:
		m.h.ApplyPresence(req.ps, user)
		return
	}
	if msg.Reply != "" {
		_ = msg.Respond(reply)
	}
}

// Broadcast announces presences to every other node.
func (m *Member) Broadcast(ps ...Presence) error {
	if len(ps) == 0 {
		return nil
	}
	return m.nc.Publish(m.subj.presence(), appendPresences(nil, m.cfg.NodeID, ps))
}

// SendPresences announces presences to one node only (after it came up).
func (m *Member) SendPresences(node uint8, ps []Presence) error {
	const perMsg = 256
	for len(ps) > 0 {
		n := min(len(ps), perMsg)
		if err := m.nc.Publish(m.subj.nodePresence(node), appendPresences(nil, m.cfg.NodeID, ps[:n])); err != nil {
			return fmt.Errorf("send presences to node %d: %w", node, err)
		}
		ps = ps[n:]
	}
	return nil
}

// SendPresenceTo tells one player's session (wherever it is) about p.
func (m *Member) SendPresenceTo(target uint64, p Presence) error {
	b := appendPresences([]byte{kindPresence}, m.cfg.NodeID, []Presence{p})
	return m.nc.Publish(m.subj.player(target), b)
}

func (m *Member) onPresence(msg *nats.Msg) {
	origin, ps, err := parsePresences(msg.Data)
	if err != nil {
		m.log.Debug("dropping malformed presence", "subject", msg.Subject, "err", err)
		return
	}
	if origin == m.cfg.NodeID {
		return // our own broadcast: applied locally before it was sent
	}
	m.h.ApplyPresence(ps, 0)
}
