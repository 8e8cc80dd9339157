package bot

import (
	"fmt"
	"slices"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// send writes one frame with a write deadline.
func (c *Client) send(m proto.ClientMessage) error {
	select {
	case <-c.done:
		return fmt.Errorf("send %s: %w", m.Op(), ErrClosed)
	default:
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_ = c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if err := proto.WriteFrame(c.nc, m); err != nil {
		return fmt.Errorf("send %s: %w", m.Op(), err)
	}
	return nil
}

// keepalive sends Keepalive every cfg.Keepalive until the connection ends.
func (c *Client) keepalive() {
	t := time.NewTicker(c.cfg.Keepalive)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if err := c.Keepalive(); err != nil {
				c.log.Debug("keepalive", "err", err)
			}
		}
	}
}

// Walk sets the tile the player walks toward.
func (c *Client) Walk(x, y uint16) error { return c.send(proto.Walk{X: x, Y: y}) }

// AddFriend asks the world to add name to the friend list.
func (c *Client) AddFriend(name string) error { return c.send(proto.FriendAdd{Name: name}) }

// sendUnanswered sends m, which the world does not answer
// (docs/world-protocol.md), and once it is sent applies its effect to
// State itself.
func (c *Client) sendUnanswered(m proto.ClientMessage, apply func(st *State)) error {
	if err := c.send(m); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	apply(&c.st)
	return nil
}

// DelFriend removes name from the friend list, and from State's.
func (c *Client) DelFriend(name string) error {
	return c.sendUnanswered(proto.FriendDel{Name: name}, func(st *State) {
		for k := range st.Friends {
			if sameName(k, name) {
				delete(st.Friends, k)
			}
		}
	})
}

// AddIgnore adds name to the ignore list, and to State's (an IgnoreList
// the world sends later replaces the list).
func (c *Client) AddIgnore(name string) error {
	return c.sendUnanswered(proto.IgnoreAdd{Name: name}, func(st *State) {
		if !slices.ContainsFunc(st.Ignores, func(k string) bool { return sameName(k, name) }) {
			st.Ignores = append(st.Ignores, name)
		}
	})
}

// DelIgnore removes name from the ignore list, and from State's.
func (c *Client) DelIgnore(name string) error {
	return c.sendUnanswered(proto.IgnoreDel{Name: name}, func(st *State) {
		st.Ignores = slices.DeleteFunc(st.Ignores, func(k string) bool { return sameName(k, name) })
	})
}

// sameName reports whether two names are the same player (name37).
func sameName(a, b string) bool {
	x, errA := proto.EncodeName(a)
	y, errB := proto.EncodeName(b)
	return errA == nil && errB == nil && x == y
}

// PM sends a private message to name; text is 1–proto.MaxText bytes.
func (c *Client) PM(name, text string) error {
	if len(text) == 0 || len(text) > proto.MaxText {
		return fmt.Errorf("pm %s: text is %d bytes, want 1–%d: %w", name, len(text), proto.MaxText, proto.ErrTextLength)
	}
	return c.send(proto.PrivateMessage{Name: name, Text: text})
}

// SetChat sets the chat modes.
func (c *Client) SetChat(public, private, trade proto.ChatMode) error {
	return c.send(proto.ChatSettings{Public: public, Private: private, Trade: trade})
}

// Keepalive sends one Keepalive (Dial's client also sends them itself).
func (c *Client) Keepalive() error { return c.send(proto.Keepalive{}) }
