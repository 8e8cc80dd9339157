package link

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
)

// errWrongToken: the first frame was a LinkAuth with another token.
var errWrongToken = errors.New("wrong link token")

// authenticate reads nc's first frame through r and reports whether it is
// a LinkAuth carrying the configured token, sent within AuthTimeout. When
// it is not, or ctx ends first, it closes nc; it logs one line at warn
// naming the reason, never a token.
func (s *Server) authenticate(ctx context.Context, nc net.Conn, r *bufio.Reader) bool {
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	_ = nc.SetReadDeadline(time.Now().Add(s.cfg.AuthTimeout))
	err := s.checkToken(nc, r)
	if !stop() { // ctx ended: Run is tearing down and closed nc
		return false
	}
	if err == nil {
		_ = nc.SetReadDeadline(time.Time{})
		return true
	}
	nc.Close()
	s.refused.Add(1)
	s.log.Warn("refusing a world connection that did not present the link token; the current world keeps the link",
		"remote", nc.RemoteAddr(), "err", err, "refused_total", s.refused.Load())
	return false
}

// checkToken reads the first frame from r: nil if it is a LinkAuth
// carrying the configured token, else why not. A first frame that is a
// LinkChallenge is answered on nc with the LinkProof for its nonce (the
// world checks that its sidecar knows the token before it presents it);
// the frame after it must then be the LinkAuth.
func (s *Server) checkToken(nc net.Conn, r *bufio.Reader) error {
	msg, err := s.readAuthFrame(r)
	if err != nil {
		return err
	}
	if ch, ok := msg.(*proto.LinkChallenge); ok {
		_ = nc.SetWriteDeadline(time.Now().Add(s.cfg.AuthTimeout))
		if err := proto.WriteFrame(nc, proto.LinkProof{MAC: proto.ProveLink(s.cfg.Token, ch.Nonce)}); err != nil {
			return fmt.Errorf("answer the link challenge: %w", err)
		}
		_ = nc.SetWriteDeadline(time.Time{})
		if msg, err = s.readAuthFrame(r); err != nil {
			return fmt.Errorf("after the link challenge: %w", err)
		}
	}
	auth, ok := msg.(*proto.LinkAuth)
	if !ok {
		return fmt.Errorf("the first frame is %v, not LinkAuth", msg.Op())
	}
	if !tokensEqual(auth.Token, s.cfg.Token) {
		return errWrongToken
	}
	return nil
}

// readAuthFrame reads and decodes one frame of the authentication, counting
// it (and, when it does not decode, as malformed).
func (s *Server) readAuthFrame(r *bufio.Reader) (proto.Message, error) {
	payload, err := proto.ReadFrame(r, nil)
	if err != nil {
		s.cutShort(err)
		return nil, fmt.Errorf("read the first frame: %w", err)
	}
	s.framesIn.Add(1)
	msg, err := proto.DecodeInbound(payload)
	if err != nil {
		s.malformed.Add(1)
		return nil, fmt.Errorf("first frame: %w", err)
	}
	return msg, nil
}

// tokensEqual compares two tokens in constant time, whatever their lengths:
// it compares their SHA-256 digests, so neither the bytes nor the length of
// the configured token leak through timing.
func tokensEqual(got, want []byte) bool {
	g, w := sha256.Sum256(got), sha256.Sum256(want)
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}
