package bot

import (
	"bufio"
	"errors"
	"io"
	"maps"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// State is what the client knows of its player, as the world last told it.
type State struct {
	PID      uint16
	Node     uint8 // the world's node id
	Map      proto.MapInfo
	Position proto.Position
	Chat     proto.ChatSettingsNow
	Nearby   []proto.NearbyPlayer // the last Nearby, nearest first
	Friends  map[string]uint8     // name → node (0 offline or hidden)
	Ignores  []string
	PMs      []PM     // received, oldest first; the last maxKept
	System   []string // system messages, oldest first; the last maxKept

	Positions  int // Position frames received after login
	NearbyMsgs int // Nearby frames received
	PMCount    int // private messages received
	Dropped    int // events dropped because Events was full
	LoggedOut  *proto.LogoutReason
}

// PM is a received private message. Sent and Seq are set when the text
// carries a Stamp (see Stamp); Latency is then At − Sent, meaningful when
// sender and receiver share a clock (one machine).
type PM struct {
	From    string
	Text    string
	Level   proto.Level
	At      time.Time
	Seq     uint64
	Sent    time.Time
	Latency time.Duration
	Stamped bool
}

// EventKind says which field of an Event is set.
type EventKind uint8

// Event kinds.
const (
	EventPosition  EventKind = iota + 1 // Position
	EventNearby                         // Nearby
	EventFriend                         // Friend, Node
	EventIgnores                        // Ignores
	EventPM                             // PM
	EventSystem                         // Text
	EventChat                           // Chat
	EventLoggedOut                      // Reason
)

// Event is one thing the world told the client.
type Event struct {
	Kind     EventKind
	At       time.Time
	Position proto.Position
	Nearby   []proto.NearbyPlayer
	Friend   string
	Node     uint8
	Ignores  []string
	PM       PM
	Text     string
	Chat     proto.ChatSettingsNow
	Reason   proto.LogoutReason
}

// State returns a copy of the tracked state.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.st
	s.Nearby = slices.Clone(s.Nearby)
	s.Friends = maps.Clone(s.Friends)
	s.Ignores = slices.Clone(s.Ignores)
	s.PMs = slices.Clone(s.PMs)
	s.System = slices.Clone(s.System)
	return s
}

// read runs until the connection ends: it decodes each frame, updates the
// state and emits an event.
func (c *Client) read(r *bufio.Reader) {
	defer close(c.done)
	defer close(c.events)
	var buf []byte
	for {
		p, err := proto.ReadFrame(r, buf)
		if err == nil {
			var m proto.WorldMessage
			if m, err = proto.DecodeWorld(p); err == nil {
				c.mu.Lock()
				ev, ok := c.applyLocked(m, time.Now())
				c.mu.Unlock()
				if ok {
					c.emit(ev)
				}
				buf = p
				continue
			}
		}
		c.end(err)
		return
	}
}

// end records why the reader stopped.
func (c *Client) end(err error) {
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		err = ErrClosed
	}
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	c.closeOnce.Do(func() { _ = c.nc.Close() })
}

func (c *Client) emit(ev Event) {
	select {
	case c.events <- ev:
	default:
		c.mu.Lock()
		c.st.Dropped++
		c.mu.Unlock()
	}
}

// applyLocked updates the state from m and returns the event it makes.
func (c *Client) applyLocked(m proto.WorldMessage, now time.Time) (Event, bool) {
	ev := Event{At: now}
	switch m := m.(type) {
	case *proto.Position:
		c.st.Position, c.st.Positions = *m, c.st.Positions+1
		ev.Kind, ev.Position = EventPosition, *m
	case *proto.Nearby:
		c.st.Nearby, c.st.NearbyMsgs = slices.Clone(m.Players), c.st.NearbyMsgs+1
		ev.Kind, ev.Nearby = EventNearby, c.st.Nearby
	case *proto.FriendStatus:
		name := proto.DecodeName(m.Name37)
		c.st.Friends[name] = m.Node
		ev.Kind, ev.Friend, ev.Node = EventFriend, name, m.Node
	case *proto.IgnoreList:
		c.st.Ignores = decodeNames(m.Names37)
		ev.Kind, ev.Ignores = EventIgnores, c.st.Ignores
	case *proto.PrivateMessageIn:
		pm := newPM(m, now)
		c.st.PMs, c.st.PMCount = keep(c.st.PMs, pm), c.st.PMCount+1
		ev.Kind, ev.PM = EventPM, pm
	case *proto.SystemMessage:
		text := strings.Clone(m.Text)
		c.st.System = keep(c.st.System, text)
		ev.Kind, ev.Text = EventSystem, text
	case *proto.ChatSettingsNow:
		c.st.Chat = *m
		ev.Kind, ev.Chat = EventChat, *m
	case *proto.LoggedOut:
		reason := m.Reason
		c.st.LoggedOut = &reason
		ev.Kind, ev.Reason = EventLoggedOut, reason
	default: // LoginResponse, MapInfo, FriendListLoaded: only at login
		return ev, false
	}
	return ev, true
}

// keep appends v, keeping the last maxKept.
func keep[T any](s []T, v T) []T {
	if len(s) >= maxKept {
		s = slices.Delete(s, 0, len(s)-maxKept+1)
	}
	return append(s, v)
}
