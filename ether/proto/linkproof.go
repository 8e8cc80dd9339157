package proto

import (
	"crypto/hmac"
	"crypto/sha256"
)

// The link proof (beyond the seed's table): before a world that holds a
// link token presents it, it asks the listener to prove that it knows the
// token, so that the token never reaches a listener that is not its own
// sidecar (another world's ether, or any program holding the port).
//
//	world ── LinkChallenge{nonce} ──► ether (first frame)
//	world ◄── LinkProof{ProveLink(token, nonce)} ── ether (only with RS_LINK_TOKEN set)
//	world ── LinkAuth{token}, WorldRegister, … ──► ether (only if the proof matches)

// NonceLen is the size of a LinkChallenge's nonce and of a LinkProof's MAC.
const NonceLen = 32

// LinkChallenge (16) asks the listener to prove that it knows the link
// token: nonce (32 random bytes). 33 bytes. An ether with RS_LINK_TOKEN
// answers it with LinkProof, when it is a connection's first frame; an
// ether without one ignores it (and so never proves anything).
type LinkChallenge struct{ Nonce [NonceLen]byte }

// LinkProof (135) is ether's answer to a LinkChallenge: mac, the
// HMAC-SHA256 of the challenge's nonce keyed with the link token
// (ProveLink). 33 bytes.
type LinkProof struct{ MAC [NonceLen]byte }

func (LinkChallenge) Op() Op { return OpLinkChallenge }
func (LinkProof) Op() Op     { return OpLinkProof }

func (m LinkChallenge) AppendPayload(b []byte) []byte {
	return append(append(b, byte(OpLinkChallenge)), m.Nonce[:]...)
}

func (m LinkProof) AppendPayload(b []byte) []byte {
	return append(append(b, byte(OpLinkProof)), m.MAC[:]...)
}

func (m *LinkChallenge) decode(p []byte) (Message, error) {
	copy(m.Nonce[:], p[1:])
	return m, nil
}

func (m *LinkProof) decode(p []byte) (Message, error) {
	copy(m.MAC[:], p[1:])
	return m, nil
}

// proofLabel separates the link proof's MACs from any other use of the token.
const proofLabel = "corrosion ether link proof v1\x00"

// ProveLink is the MAC a LinkProof carries for nonce: HMAC-SHA256 keyed
// with token over proofLabel followed by the nonce.
func ProveLink(token []byte, nonce [NonceLen]byte) [NonceLen]byte {
	h := hmac.New(sha256.New, token)
	h.Write([]byte(proofLabel))
	h.Write(nonce[:])
	var mac [NonceLen]byte
	h.Sum(mac[:0])
	return mac
}

// ValidProof reports, in constant time, whether mac proves knowledge of
// token for nonce.
func ValidProof(token []byte, nonce, mac [NonceLen]byte) bool {
	want := ProveLink(token, nonce)
	return hmac.Equal(want[:], mac[:])
}
