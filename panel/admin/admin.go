// Package admin is the panel's audit log page (GET /audit, for everyone,
// scoped to what they may see) and its administration pages (/admin…, for
// admins only): operators, licenses, grants and heartbeats from unknown
// licenses. Every change is audited. Only panel packages import it.
package admin

import (
	"context"
	"log/slog"
	"time"

	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
)

// Store is what the feature reads and changes (panel/store).
type Store interface {
	Audit(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, error)
	Users(ctx context.Context) ([]store.User, error)
	UserByID(ctx context.Context, id int64) (store.User, error)
	CreateUser(ctx context.Context, name, passwordHash, role string) (store.User, error)
	SetRole(ctx context.Context, userID int64, role string) error
	DisableUser(ctx context.Context, userID int64) error
	EnableUser(ctx context.Context, userID int64) error
	SetPassword(ctx context.Context, userID int64, passwordHash string) error
	SetGrants(ctx context.Context, userID int64, licenses []string) error
	Licenses(ctx context.Context) ([]store.License, error)
	CreateLicense(ctx context.Context, id, label string) error
	SetLicenseDisabled(ctx context.Context, id string, state store.LicenseState) error
	SetLicenseLabel(ctx context.Context, id, label string) error
	UnknownLicenses(ctx context.Context) ([]store.UnknownLicense, error)
}

var _ Store = (*store.Store)(nil)

// Hasher hashes new passwords (panel/auth's Hasher, bounded and argon2id).
type Hasher interface {
	Hash(ctx context.Context, password string) (string, error)
}

// Deps are what the feature needs.
type Deps struct {
	Store  Store
	Hasher Hasher
	Logger *slog.Logger
	Now    func() time.Time // nil: time.Now
}

// Feature serves /audit and /admin….
type Feature struct {
	deps Deps // immutable after New
}

// New returns the feature.
func New(d Deps) *Feature {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Feature{deps: d}
}

// The audit actions of the administration routes.
const (
	ActionUserAdd        = "user.add"
	ActionUserRole       = "user.role"
	ActionUserDisable    = "user.disable"
	ActionUserPassword   = "user.password"
	ActionGrantSet       = "grant.set"
	ActionLicenseAdd     = "license.add"
	ActionLicenseDisable = "license.disable"
	ActionLicenseLabel   = "license.label"
)

// Routes is the feature's route table. Every /admin route needs Admin,
// GET and POST alike.
func (f *Feature) Routes() []httpx.Route {
	return []httpx.Route{
		{Pattern: "GET /audit", Need: httpx.View, Handler: f.auditPage},
		{Pattern: "GET /admin", Need: httpx.Admin, Handler: f.adminPage},
		{Pattern: "POST /admin/users", Need: httpx.Admin, Audit: ActionUserAdd, Handler: f.addUser},
		{Pattern: "POST /admin/users/{user}/role", Need: httpx.Admin, Audit: ActionUserRole, Handler: f.setRole},
		{Pattern: "POST /admin/users/{user}/disabled", Need: httpx.Admin, Audit: ActionUserDisable, Handler: f.setUserDisabled},
		{Pattern: "POST /admin/users/{user}/password", Need: httpx.Admin, Audit: ActionUserPassword, Handler: f.setPassword},
		{Pattern: "POST /admin/users/{user}/grants", Need: httpx.Admin, Audit: ActionGrantSet, Handler: f.setGrants},
		{Pattern: "POST /admin/licenses", Need: httpx.Admin, Audit: ActionLicenseAdd, Handler: f.addLicense},
		{Pattern: "POST /admin/licenses/{license}/disabled", Need: httpx.Admin, Audit: ActionLicenseDisable, Handler: f.setLicenseDisabled},
		{Pattern: "POST /admin/licenses/{license}/label", Need: httpx.Admin, Audit: ActionLicenseLabel, Handler: f.setLicenseLabel},
	}
}

// knownActions are suggested in the audit filter's action field.
var knownActions = []string{"login", "logout", server.DeniedAction, "instance.power", "instance.send", "instance.rcon", "instance.reach", "files.",
	ActionUserAdd, ActionUserRole, ActionUserDisable, ActionUserPassword, ActionGrantSet,
	ActionLicenseAdd, ActionLicenseDisable, ActionLicenseLabel, "user.", "license."}
