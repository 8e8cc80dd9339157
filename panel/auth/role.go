// Package auth is who an operator is and what they may do: roles, the
// principal of a request with its license grants, argon2id password hashes,
// sessions and the failed-login rate limit. Only panel packages import it.
package auth

import "slices"

// Role is an operator's role.
type Role string

// The roles, from most to least powerful.
const (
	RoleAdmin    Role = "admin"    // everything, every license, operators and licenses
	RoleOperator Role = "operator" // sees and controls the licenses granted to them
	RoleViewer   Role = "viewer"   // sees the licenses granted to them; cannot act
)

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r == RoleAdmin || r == RoleOperator || r == RoleViewer }

// Principal is the logged-in operator behind a request.
type Principal struct {
	UserID   int64
	Name     string
	Role     Role
	Licenses []string // granted licenses, sorted; ignored for admins (they see all)
}

// IsAdmin reports whether p administers the panel.
func (p *Principal) IsAdmin() bool { return p != nil && p.Role == RoleAdmin }

// CanView reports whether p may see the license's host, instances and
// streams.
func (p *Principal) CanView(license string) bool {
	if p == nil {
		return false
	}
	if p.Role == RoleAdmin {
		return true
	}
	_, ok := slices.BinarySearch(p.Licenses, license)
	return ok
}

// CanAct reports whether p may change something on the license (power,
// console input, RCON, files).
func (p *Principal) CanAct(license string) bool {
	return p != nil && p.Role != RoleViewer && p.CanView(license)
}

// SamePermissions reports whether now may see and do exactly what was
// may (the same operator, role and grants); a nil now (logged out) may
// not.
func SamePermissions(now, was *Principal) bool {
	return now != nil && was != nil && now.UserID == was.UserID && now.Role == was.Role && slices.Equal(now.Licenses, was.Licenses)
}
