package proto

// Extensions beyond the seed's table for overlapping a login's password
// check with its LoginCheck:
//
//	world ── FeatureQuery ──► ether (once per connection, after WorldRegister)
//	world ◄── Features{mask} ── ether (an ether that does not know the query drops it)
//	world ── LoginRelease{user37} ──► ether (a LoginCheck's login ended before PlayerLogin)
//
// A world sends LoginRelease only to a sidecar whose Features announced
// FeatureLoginRelease; without the answer it speaks the seed's table only.
// A seed-only world never asks, so it is never sent Features.

// FeatureLoginRelease is the Features bit of a sidecar that handles
// LoginRelease.
const FeatureLoginRelease uint32 = 1 << 0

// LoginRelease (18) gives back the login lock a LoginCheck took, when that
// login ends before PlayerLogin (a wrong password, a hang-up, a shutdown):
// user37 u64. The sidecar releases it only if it holds it for this world's
// pending login; it answers nothing. 9 bytes.
type LoginRelease struct{ User37 uint64 }

// FeatureQuery (19) asks the sidecar which extensions it handles; it
// answers Features. 1 byte (the opcode).
type FeatureQuery struct{}

// Features (136) is the answer to FeatureQuery: mask u32, one bit per
// extension (FeatureLoginRelease); unknown bits are ignored. 5 bytes.
type Features struct{ Mask uint32 }

func (LoginRelease) Op() Op { return OpLoginRelease }
func (FeatureQuery) Op() Op { return OpFeatureQuery }
func (Features) Op() Op     { return OpFeatures }

func (m LoginRelease) AppendPayload(b []byte) []byte {
	return be.AppendUint64(append(b, byte(OpLoginRelease)), m.User37)
}

func (FeatureQuery) AppendPayload(b []byte) []byte { return append(b, byte(OpFeatureQuery)) }

func (m Features) AppendPayload(b []byte) []byte {
	return be.AppendUint32(append(b, byte(OpFeatures)), m.Mask)
}

func (m *LoginRelease) decode(p []byte) (Message, error) {
	m.User37 = be.Uint64(p[1:])
	return m, nil
}

func (m *FeatureQuery) decode(p []byte) (Message, error) { return m, nil }

func (m *Features) decode(p []byte) (Message, error) {
	m.Mask = be.Uint32(p[1:])
	return m, nil
}
