package cluster

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/corrosion/corrosion/ether/privacy"
)

// The node-to-node payloads are small binary records (big-endian), one
// kind byte first. They are internal to a cluster of ether nodes of the
// same version and documented in the README.

// Request kinds on a player subject.
const (
	kindQuery    = 'q' // asker u64 → reply 'r' node u8, or 'n' (no session)
	kindPM       = 'm' // sender u64, level u8, body → reply 'r' result u8
	kindPing     = 'p' // → reply 'y' (session here) or 'n'
	kindPresence = 'u' // presence batch for this player only; no reply
)

// Reply kinds.
const (
	replyResult    = 'r'
	replyNoSession = 'n'
	replyYes       = 'y'
)

// ErrMalformed: a node-to-node payload that does not parse.
var ErrMalformed = errors.New("cluster: malformed payload")

// Presence is what a player's session announces: where it is and who may
// see it there. Node 0 means offline.
type Presence struct {
	User    uint64
	Node    uint8        // the world node the player is on; 0 when offline
	Mode    privacy.Mode // who may see the player there
	Friends []uint64     // the player's friends; carried only in Friends mode
}

// VisibleNode is the node at which asker sees p's player: p.Node when the
// private mode lets asker see it (privacy.Mode.Visible), else 0.
func (p Presence) VisibleNode(asker uint64) uint8 {
	if p.Node == 0 || !p.Mode.Visible(func() bool { return slices.Contains(p.Friends, asker) }) {
		return 0
	}
	return p.Node
}

// PM is a private message in flight between nodes.
type PM struct {
	Sender uint64
	Level  uint8
	Body   []byte
}

// PMResult is what became of a private message.
type PMResult uint8

// PM results. Everything but PMDelivered is a drop.
const (
	PMDelivered  PMResult = 1 // sent to the target's world
	PMOffline    PMResult = 2 // the target has no session anywhere
	PMIgnored    PMResult = 3 // the target ignores the sender
	PMPrivateOff PMResult = 4 // the target's private mode is Off
	PMNotFriend  PMResult = 5 // the target's mode is Friends and it does not list the sender
	PMNoWorld    PMResult = 6 // the target's node has no world connected
)

// String names the result for logs and metric labels.
func (r PMResult) String() string {
	switch r {
	case PMDelivered:
		return "delivered"
	case PMOffline:
		return "offline"
	case PMIgnored:
		return "ignored"
	case PMPrivateOff:
		return "private_off"
	case PMNotFriend:
		return "not_friend"
	case PMNoWorld:
		return "no_world"
	}
	return "unknown"
}

func appendU64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }

// appendPresences encodes origin u8, count u16, then per entry: user u64,
// node u8, mode u8, friend count u16, friends u64 each (only in Friends
// mode, where the receiver needs them to decide visibility).
func appendPresences(b []byte, origin uint8, ps []Presence) []byte {
	b = append(b, origin)
	b = binary.BigEndian.AppendUint16(b, uint16(len(ps)))
	for _, p := range ps {
		b = appendU64(b, p.User)
		b = append(b, p.Node, byte(p.Mode))
		var fs []uint64
		if p.Mode == privacy.Friends && p.Node != 0 {
			fs = p.Friends
		}
		b = binary.BigEndian.AppendUint16(b, uint16(len(fs)))
		for _, f := range fs {
			b = appendU64(b, f)
		}
	}
	return b
}

// parsePresences decodes what appendPresences wrote. Friend lists are
// copied out of b.
func parsePresences(b []byte) (origin uint8, ps []Presence, err error) {
	if len(b) < 3 {
		return 0, nil, ErrMalformed
	}
	origin = b[0]
	n := int(binary.BigEndian.Uint16(b[1:]))
	b = b[3:]
	if n > len(b)/12 {
		return 0, nil, ErrMalformed
	}
	ps = make([]Presence, 0, n)
	for i := 0; i < n; i++ {
		if len(b) < 12 {
			return 0, nil, ErrMalformed
		}
		p := Presence{User: binary.BigEndian.Uint64(b), Node: b[8], Mode: privacy.Mode(b[9])}
		nf := int(binary.BigEndian.Uint16(b[10:]))
		b = b[12:]
		if len(b) < nf*8 {
			return 0, nil, ErrMalformed
		}
		if nf > 0 {
			p.Friends = make([]uint64, nf)
			for j := range p.Friends {
				p.Friends[j] = binary.BigEndian.Uint64(b[j*8:])
			}
			b = b[nf*8:]
		}
		ps = append(ps, p)
	}
	if len(b) != 0 {
		return 0, nil, ErrMalformed
	}
	return origin, ps, nil
}

func encodeQuery(asker uint64) []byte {
	return appendU64(append(make([]byte, 0, 9), kindQuery), asker)
}

func encodePM(pm PM) []byte {
	b := make([]byte, 0, 10+len(pm.Body))
	b = appendU64(append(b, kindPM), pm.Sender)
	return append(append(b, pm.Level), pm.Body...)
}

// request is a decoded player-subject request.
type request struct {
	kind  byte
	asker uint64 // kindQuery
	pm    PM     // kindPM; Body aliases the payload
	ps    []Presence
}

func parseRequest(b []byte) (request, error) {
	if len(b) == 0 {
		return request{}, ErrMalformed
	}
	r := request{kind: b[0]}
	switch r.kind {
	case kindQuery:
		if len(b) != 9 {
			return r, ErrMalformed
		}
		r.asker = binary.BigEndian.Uint64(b[1:])
	case kindPM:
		if len(b) < 10 {
			return r, ErrMalformed
		}
		r.pm = PM{Sender: binary.BigEndian.Uint64(b[1:]), Level: b[9], Body: b[10:]}
	case kindPing:
		if len(b) != 1 {
			return r, ErrMalformed
		}
	case kindPresence:
		_, ps, err := parsePresences(b[1:])
		if err != nil {
			return r, err
		}
		r.ps = ps
	default:
		return r, ErrMalformed
	}
	return r, nil
}
