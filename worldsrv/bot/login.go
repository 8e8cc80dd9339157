package bot

import (
	"bufio"
	"context"
	"fmt"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// loginStep is where the login sequence is: the frame expected next.
type loginStep uint8

const (
	stepResponse loginStep = iota
	stepMapInfo
	stepPosition
	stepChat
	stepFriends // FriendStatus frames, ended by IgnoreList
	stepLoaded
	stepDone
)

var stepNames = [...]string{"LoginResponse", "MapInfo", "Position", "ChatSettings",
	"FriendStatus or IgnoreList", "FriendListLoaded", "done"}

// login sends Login and reads the sequence in the documented order into
// c.st. The connection's deadline follows ctx meanwhile.
func (c *Client) login(ctx context.Context, r *bufio.Reader) error {
	if dl, ok := ctx.Deadline(); ok {
		_ = c.nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := proto.WriteFrame(c.nc, proto.Login{Username: c.cfg.Name, Password: c.cfg.Password}); err != nil {
		return fmt.Errorf("send login: %w", err)
	}
	c.st.Friends = map[string]uint8{}
	step := stepResponse
	for step != stepDone {
		p, err := proto.ReadFrame(r, nil)
		if err != nil {
			return fmt.Errorf("read %s: %w", stepNames[step], ctxErr(ctx, err))
		}
		m, err := proto.DecodeWorld(p)
		if err != nil {
			return fmt.Errorf("decode %s: %w", stepNames[step], err)
		}
		if step, err = c.loginFrame(step, m); err != nil {
			return err
		}
	}
	return c.nc.SetDeadline(time.Time{})
}

// ctxErr prefers ctx's error to the deadline error it caused.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	return err
}

// loginFrame applies one frame of the login sequence and returns the next
// step. Frames the sequence does not contain (SystemMessage, Nearby, ...)
// are tracked like later ones.
func (c *Client) loginFrame(step loginStep, m proto.WorldMessage) (loginStep, error) {
	switch m := m.(type) {
	case *proto.LoginResponse:
		if step != stepResponse {
			break
		}
		if m.Code != proto.LoginOK {
			return step, &LoginError{Code: m.Code}
		}
		c.st.PID, c.st.Node = m.PID, m.Node
		return stepMapInfo, nil
	case *proto.MapInfo:
		if step == stepMapInfo {
			c.st.Map = *m
			return stepPosition, nil
		}
	case *proto.Position:
		if step == stepPosition {
			c.st.Position = *m
			return stepChat, nil
		}
	case *proto.ChatSettingsNow:
		if step == stepChat {
			c.st.Chat = *m
			return stepFriends, nil
		}
	case *proto.FriendStatus:
		if step == stepFriends {
			c.st.Friends[proto.DecodeName(m.Name37)] = m.Node
			return step, nil
		}
	case *proto.IgnoreList:
		if step == stepFriends {
			c.st.Ignores = decodeNames(m.Names37)
			return stepLoaded, nil
		}
	case *proto.FriendListLoaded:
		if step == stepLoaded {
			return stepDone, nil
		}
	default:
		if step > stepResponse {
			c.applyLocked(m, time.Now())
			return step, nil
		}
	}
	return step, fmt.Errorf("got %s, want %s: %w", opName(m), stepNames[step], ErrLoginSequence)
}

func opName(m proto.WorldMessage) string { return m.Op().String() }

func decodeNames(v []uint64) []string {
	out := make([]string, len(v))
	for i, n := range v {
		out[i] = proto.DecodeName(n)
	}
	return out
}
