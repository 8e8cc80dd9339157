package bot

import (
	"fmt"
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

// DelFriend removes name from the friend list.
func (c *Client) DelFriend(name string) error { return c.send(proto.FriendDel{Name: name}) }

// AddIgnore adds name to the ignore list.
func (c *Client) AddIgnore(name string) error { return c.send(proto.IgnoreAdd{Name: name}) }

// DelIgnore removes name from the ignore list.
func (c *Client) DelIgnore(name string) error { return c.send(proto.IgnoreDel{Name: name}) }

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
