// Package livestate carries the fleet's live state to open browser pages.
// What ingest committed to the store (heartbeats, going_offline beacons,
// status events: never what it refused) is published by the committing
// replica (PublishCommitted, ingest's commit hook) and every replica's hub
// subscribes to it; the hub feeds it to a Model (the pages' renderer) on
// one goroutine, and the server-rendered fragments it returns are fanned
// out to the open Server-Sent Events streams whose principal may see the
// fragment's license. A ticker lets the Model re-evaluate hosts (a host
// falling silent turns offline while its page is open). The Model reads
// the store off that goroutine (Update hands the result back), so a slow
// store read delays no other host's update.
//
// Drop policy: the NATS → Model queue and every stream's buffer are
// bounded. A full queue drops the incoming message; a full stream buffer
// drops the fragment. Either way the affected streams are sent the
// "refetch" event (ui.EventRefetch) once they can take it, and the page
// parts listening for it fetch themselves again from the store. Nothing is
// dropped silently and no slow browser slows another. Only panel packages
// import it.
package livestate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/store"
)

// Kind is what an Event carries.
type Kind int

// The event kinds, one per subscribed subject.
const (
	KindHeartbeat    Kind = iota + 1 // corrosion.{license}.host.heartbeat
	KindGoingOffline                 // corrosion.{license}.host.going_offline
	KindStatus                       // corrosion.{license}.{instance}.status
)

// Event is one agent message as ingest committed it to the store.
type Event struct {
	Kind      Kind                `json:"kind"`
	License   string              `json:"license"`
	Instance  string              `json:"instance,omitempty"` // KindStatus only
	Received  time.Time           `json:"received"`           // when the panel received it (a status event: committed it)
	Heartbeat *store.HeartbeatRow `json:"heartbeat,omitempty"`
	Status    *store.Event        `json:"status,omitempty"`
}

// View is a kind of page that opens a stream.
type View uint8

// The views; a Fragment names the set of views it updates.
const (
	ViewFleet    View = 1 << iota // GET /: every visible host
	ViewHost                      // GET /hosts/{license}
	ViewInstance                  // GET /hosts/{license}/instances/{instance} and its tabs
)

// Audience narrows a fragment to principals by what they may do on its
// license (power buttons differ for those who may act).
type Audience uint8

// The audiences.
const (
	Everyone  Audience = iota // every principal who may view the license
	Actors                    // those who may act on it
	NonActors                 // those who may only view it
)

// Fragment is a server-rendered piece of a page, sent as one SSE event
// whose name the page's sse-swap attributes listen for.
type Fragment struct {
	License  string // whose data it shows; streams check CanView on it
	Instance string // empty: host-level (every instance stream of the license gets it)
	Views    View   // the views it updates (a bit set)
	Audience Audience
	Name     string // the SSE event name
	HTML     []byte
}

// Model turns events into fragments. Apply and Tick are called on the
// hub's one goroutine, never concurrently; want is the set of views that
// have open streams (render nothing for the others). They never wait for
// the store: a Model that needs a store read does it on a goroutine of its
// own and hands the result back with Hub.Update.
type Model interface {
	Apply(ctx context.Context, ev Event, want View) []Fragment
	Tick(ctx context.Context, now time.Time, want View) []Fragment
}

// Starter is implemented by a Model that prepares itself when the hub's
// Run starts (on the hub's goroutine, after the subscriptions, before the
// first event), e.g. by starting a store read.
type Starter interface {
	Start(ctx context.Context)
}

// Config tunes the hub; zero fields take the defaults.
type Config struct {
	Queue     int           // NATS messages waiting for the Model; default 4096
	Buffer    int           // fragments waiting per stream; default 256
	Tick      time.Duration // how often the Model re-evaluates hosts; default 1 s
	KeepAlive time.Duration // comment line on an idle stream; default 20 s
}

func (c Config) withDefaults() Config {
	if c.Queue <= 0 {
		c.Queue = 4096
	}
	if c.Buffer <= 0 {
		c.Buffer = 256
	}
	if c.Tick <= 0 {
		c.Tick = time.Second
	}
	if c.KeepAlive <= 0 {
		c.KeepAlive = 20 * time.Second
	}
	return c
}

// Subject is what the hub subscribes to (a plain subscription: every
// replica sees what any replica's ingest committed, for its own open
// streams): corrosion-panel.live.{license}, one committed Event (JSON) per
// message. Only panel replicas publish there; agents' NATS permissions
// should stop at corrosion.{license}.>.
const Subject = subjectPrefix + "*"

const subjectPrefix = "corrosion-panel.live."

// Hub is one replica's live state fan-out.
type Hub struct {
	cfg     Config         // immutable after New
	nc      *nats.Conn     // immutable after New
	model   Model          // immutable after New; called only from Run's goroutine
	log     *slog.Logger   // immutable after New
	metrics *metrics       // immutable after New
	queue   chan *nats.Msg // NATS → Run; bounded, see the drop policy
	joins   chan join      // streams waiting for their snapshot; unbuffered
	calls   chan call      // Update's functions; unbuffered
	lost    atomic.Bool    // a queued message was dropped: every stream refetches
	running atomic.Bool    // Run is serving joins

	mu      sync.Mutex
	streams map[*stream]struct{} // guarded by mu
	views   [3]int               // open streams per view (index = bit position); guarded by mu
}

// New returns a hub; Run starts it.
func New(cfg Config, nc *nats.Conn, model Model, logger *slog.Logger, m *Metrics) (*Hub, error) {
	if nc == nil || model == nil {
		return nil, errors.New("livestate: a NATS connection and a model are required")
	}
	if logger == nil {
		logger = slog.Default()
	}
	cfg = cfg.withDefaults()
	return &Hub{
		cfg: cfg, nc: nc, model: model, log: logger.With("component", "livestate"),
		metrics: m.orNop(), queue: make(chan *nats.Msg, cfg.Queue), joins: make(chan join),
		calls:   make(chan call),
		streams: map[*stream]struct{}{},
	}, nil
}

// Run subscribes and feeds the Model until ctx ends. Teardown: the
// subscriptions are removed first (nothing new is queued), then the loop
// stops; open streams end with their own requests.
func (h *Hub) Run(ctx context.Context) error {
	sub, err := h.nc.Subscribe(Subject, h.enqueue)
	if err != nil {
		return fmt.Errorf("livestate: subscribe %s: %w", Subject, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := h.nc.Flush(); err != nil {
		return fmt.Errorf("livestate: flush subscriptions: %w", err)
	}
	h.running.Store(true) // before Start: what Start begins may call Update (served by the loop below)
	defer h.running.Store(false)
	if st, ok := h.model.(Starter); ok {
		st.Start(ctx)
	}
	tick := time.NewTicker(h.cfg.Tick)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case j := <-h.joins:
			h.handleJoin(ctx, j)
		case c := <-h.calls:
			h.fanout(c.fn(h.model, h.wanted()))
			close(c.done)
		case m := <-h.queue:
			h.handle(ctx, m)
		case now := <-tick.C:
			h.tick(ctx, now)
		}
	}
}

// ErrNotRunning is returned by Do and Update when the hub's Run is not
// running.
var ErrNotRunning = errors.New("livestate: the hub is not running")

type call struct {
	fn   func(Model, View) []Fragment
	done chan struct{}
}

// Do runs fn with the Model on the hub's goroutine, between two events
// (the Model is not safe for use anywhere else), and waits for it. It
// fails with ErrNotRunning when Run is not running, or with ctx's error.
func (h *Hub) Do(ctx context.Context, fn func(Model)) error {
	return h.Update(ctx, func(m Model, _ View) []Fragment {
		fn(m)
		return nil
	})
}

// Update is Do for a change of the Model's state (a store read that
// landed): fn gets the views with open streams, and the fragments it
// returns are fanned out as an event's are.
func (h *Hub) Update(ctx context.Context, fn func(m Model, want View) []Fragment) error {
	if !h.running.Load() {
		return ErrNotRunning
	}
	c := call{fn: fn, done: make(chan struct{})}
	select {
	case h.calls <- c:
	case <-ctx.Done():
		return ctx.Err()
	}
	<-c.done // received: the loop runs it now, and returns to the select after
	return nil
}

// enqueue runs on the NATS client's goroutine: it never blocks.
func (h *Hub) enqueue(m *nats.Msg) {
	select {
	case h.queue <- m:
	default:
		h.metrics.queueDropped.Inc()
		h.lost.Store(true)
	}
}

func (h *Hub) handle(ctx context.Context, m *nats.Msg) {
	ev, err := DecodeCommitted(m.Subject, m.Data)
	if err != nil {
		h.metrics.malformed.Inc()
		h.log.Debug("ignored message", "subject", m.Subject, "err", err)
		return
	}
	// Applied even when nobody watches (want 0): the Model's state stays
	// current for the next stream to open.
	h.fanout(h.model.Apply(ctx, ev, h.wanted()))
}

func (h *Hub) tick(ctx context.Context, now time.Time) {
	if h.lost.Swap(false) {
		h.refetchAll()
	}
	want := h.wanted()
	if want == 0 {
		return
	}
	h.fanout(h.model.Tick(ctx, now, want))
}

// PublishCommitted returns ingest's commit hook: it publishes what a
// batch committed, one Event per heartbeat, beacon and status event, for
// every replica's hub. Publishing does not block (the NATS client buffers);
// a failure is logged at debug level (the pages refetch on reconnect).
func PublishCommitted(nc *nats.Conn, logger *slog.Logger) func(b *store.Batch, committed time.Time) {
	if logger == nil {
		logger = slog.Default()
	}
	log := logger.With("component", "livestate")
	pub := func(ev Event) {
		data, err := json.Marshal(ev)
		if err == nil {
			err = nc.Publish(subjectPrefix+ev.License, data)
		}
		if err != nil {
			log.Debug("cannot publish a committed event", "license", ev.License, "err", err)
		}
	}
	return func(b *store.Batch, committed time.Time) {
		for _, r := range b.Heartbeats {
			r.JSON = nil // the decoded heartbeat is what the model needs
			pub(Event{Kind: KindHeartbeat, License: r.License, Received: r.Received, Heartbeat: &r})
		}
		for _, bc := range b.Beacons {
			pub(Event{Kind: KindGoingOffline, License: bc.License, Received: bc.At})
		}
		for _, e := range b.Events {
			pub(Event{Kind: KindStatus, License: e.License, Instance: e.Instance, Received: committed, Status: &e})
		}
	}
}

// DecodeCommitted decodes a message PublishCommitted sent on subject,
// refusing anything that is not a committed event of the subject's
// license (a message on that subject is from a panel replica, but NATS is
// shared with agents: it is checked all the same).
func DecodeCommitted(subject string, data []byte) (Event, error) {
	license, ok := strings.CutPrefix(subject, subjectPrefix)
	if !ok || !wire.ValidLicenseID(license) {
		return Event{}, fmt.Errorf("unexpected subject %q", subject)
	}
	var ev Event
	if err := json.Unmarshal(data, &ev); err != nil {
		return Event{}, fmt.Errorf("decode committed event: %w", err)
	}
	if ev.License != license {
		return Event{}, fmt.Errorf("event of license %q on the subject of %q", ev.License, license)
	}
	switch {
	case ev.Kind == KindHeartbeat && ev.Heartbeat != nil && ev.Heartbeat.License == license && ev.Status == nil:
	case ev.Kind == KindGoingOffline && ev.Heartbeat == nil && ev.Status == nil:
	case ev.Kind == KindStatus && ev.Status != nil && ev.Heartbeat == nil && wire.ValidInstanceID(ev.Instance) &&
		ev.Status.License == license && ev.Status.Instance == ev.Instance && ev.Status.State != "":
	default:
		return Event{}, fmt.Errorf("malformed committed event of kind %d for %s", ev.Kind, license)
	}
	return ev, nil
}
