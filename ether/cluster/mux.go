package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
)

// ErrNotConnected: the NATS connection is down, so remote players cannot be
// reached right now.
var ErrNotConnected = errors.New("cluster: nats not connected")

// mux pipelines requests: every request of this node carries a reply
// subject under one inbox subscription, so a batch of N requests is N
// publishes and one wait, without a goroutine per request.
type mux struct {
	mu      sync.Mutex
	seq     uint64          // guarded by mu; the last token handed out
	pending map[uint64]slot // guarded by mu; token → waiting batch slot
}

// slot is one outstanding request of a batch.
type slot struct {
	b *batch // immutable after creation
	i int    // immutable after creation; the request's index in b
}

// batch collects the replies of requests published together.
type batch struct {
	onReply   func(i int, m *nats.Msg) // immutable after creation; runs under mux.mu; m nil: no responders
	remaining int                      // guarded by mux.mu
	done      chan struct{}            // immutable after creation; closed under mux.mu when remaining hits 0
}

func (x *mux) init() { x.pending = map[uint64]slot{} }

// register records a batch of n requests and returns their tokens, in
// request order.
func (x *mux) register(b *batch, n int) []uint64 {
	toks := make([]uint64, n)
	x.mu.Lock()
	defer x.mu.Unlock()
	for i := range toks {
		x.seq++
		toks[i] = x.seq
		x.pending[toks[i]] = slot{b: b, i: i}
	}
	return toks
}

// abandon forgets the requests of toks that have not been answered yet
// and reports how many those were. A reply arriving later is dropped.
func (x *mux) abandon(toks []uint64) (missing int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, tok := range toks {
		if _, ok := x.pending[tok]; ok {
			delete(x.pending, tok)
			missing++
		}
	}
	return missing
}

// onReply routes a reply (or a no-responders status) to its batch.
func (x *mux) onReply(m *nats.Msg) {
	i := strings.LastIndexByte(m.Subject, '.')
	tok, err := strconv.ParseUint(m.Subject[i+1:], 36, 64)
	if err != nil {
		return
	}
	if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
		m = nil
	}
	// The callback runs under the lock, so that a batch giving up on a
	// timeout never races a reply being recorded. Callbacks are tiny.
	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.pending[tok]
	if !ok {
		return // late reply after a timeout
	}
	delete(x.pending, tok)
	s.b.onReply(s.i, m)
	s.b.remaining--
	if s.b.remaining == 0 {
		close(s.b.done)
	}
}

// requestMany sends n requests (subject and payload of the i-th from
// subj(i) and data(i)) and calls onReply for each answer until all have
// answered or ctx ends. Requests without an answer by then get no call.
func (m *Member) requestMany(ctx context.Context, n int, subj func(int) string, data func(int) []byte, onReply func(int, *nats.Msg)) error {
	if n == 0 {
		return nil
	}
	if !m.nc.IsConnected() {
		return ErrNotConnected
	}
	b := &batch{onReply: onReply, remaining: n, done: make(chan struct{})}
	toks := m.mux.register(b, n)
	var pubErr error
	for i, tok := range toks {
		msg := &nats.Msg{Subject: subj(i), Reply: m.inbox + "." + strconv.FormatUint(tok, 36), Data: data(i)}
		if err := m.nc.PublishMsg(msg); err != nil {
			pubErr = fmt.Errorf("publish %s: %w", msg.Subject, err)
			break
		}
	}
	if pubErr == nil {
		ctx, cancel := context.WithTimeout(ctx, m.cfg.RequestTimeout)
		defer cancel()
		select {
		case <-b.done:
			return nil
		case <-ctx.Done():
		}
	}
	missing := m.mux.abandon(toks)
	if pubErr != nil {
		return pubErr
	}
	if missing > 0 {
		return fmt.Errorf("%d of %d requests unanswered: %w", missing, n, context.DeadlineExceeded)
	}
	return nil
}

// Lookup asks each user's session at which node asker sees it. out[i] is
// that node, or 0 when users[i] is offline, hidden from asker or did not
// answer in time (the error then says how many did not).
func (m *Member) Lookup(ctx context.Context, asker uint64, users []uint64, out []uint8) error {
	q := encodeQuery(asker)
	for i := range out {
		out[i] = 0
	}
	return m.requestMany(ctx, len(users),
		func(i int) string { return m.subj.player(users[i]) },
		func(int) []byte { return q },
		func(i int, r *nats.Msg) {
			if r != nil && len(r.Data) == 2 && r.Data[0] == replyResult {
				out[i] = r.Data[1]
			}
		})
}

// Online reports whether user has a session on any node.
func (m *Member) Online(ctx context.Context, user uint64) (bool, error) {
	online := false
	err := m.requestMany(ctx, 1,
		func(int) string { return m.subj.player(user) },
		func(int) []byte { return []byte{kindPing} },
		func(_ int, r *nats.Msg) { online = r != nil && len(r.Data) == 1 && r.Data[0] == replyYes })
	return online, err
}

// SendPM routes pm to target's session wherever it is. PMOffline means no
// node has a session for target.
func (m *Member) SendPM(ctx context.Context, target uint64, pm PM) (PMResult, error) {
	res := PMOffline
	err := m.requestMany(ctx, 1,
		func(int) string { return m.subj.player(target) },
		func(int) []byte { return encodePM(pm) },
		func(_ int, r *nats.Msg) {
			if r != nil && len(r.Data) == 2 && r.Data[0] == replyResult {
				res = PMResult(r.Data[1])
			}
		})
	return res, err
}
