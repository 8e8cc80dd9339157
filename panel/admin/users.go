package admin

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
)

// MaxUserName is the longest operator name, in characters.
const MaxUserName = 64

// checkUserName refuses names that would be confusing in lists and logs.
func checkUserName(name string) error {
	switch {
	case name == "":
		return httpx.Errorf(http.StatusBadRequest, "an operator needs a name")
	case utf8.RuneCountInString(name) > MaxUserName:
		return httpx.Errorf(http.StatusBadRequest, "a name may have at most %d characters", MaxUserName)
	case strings.TrimSpace(name) != name:
		return httpx.Errorf(http.StatusBadRequest, "a name may not start or end with a space")
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) >= 0:
		return httpx.Errorf(http.StatusBadRequest, "a name may not hold control characters")
	}
	return nil
}

func checkRole(role string) error {
	if !auth.Role(role).Valid() {
		return httpx.Errorf(http.StatusBadRequest, "role %q is not admin, operator or viewer", role)
	}
	return nil
}

// hash checks a new password against the rules and hashes it.
func (f *Feature) hash(ctx context.Context, password string) (string, error) {
	if err := auth.CheckNewPassword(password); err != nil {
		return "", httpx.Wrap(http.StatusBadRequest, strings.TrimPrefix(err.Error(), auth.ErrPasswordRules.Error()+": "), err)
	}
	h, err := f.deps.Hasher.Hash(ctx, password)
	if errors.Is(err, auth.ErrBusy) {
		return "", httpx.Wrap(http.StatusServiceUnavailable, auth.ErrBusy.Error(), err)
	}
	return h, err
}

// addUser serves POST /admin/users: name, role, password.
func (f *Feature) addUser(w http.ResponseWriter, r *http.Request, _ *auth.Principal) error {
	name, role := r.PostFormValue("name"), r.PostFormValue("role")
	server.SetAuditTarget(r, name)
	if err := checkUserName(name); err != nil {
		return err
	}
	if err := checkRole(role); err != nil {
		return err
	}
	h, err := f.hash(r.Context(), r.PostFormValue("password"))
	if err != nil {
		return err
	}
	if _, err := f.deps.Store.CreateUser(r.Context(), name, h, role); errors.Is(err, store.ErrUserExists) {
		return httpx.Wrap(http.StatusConflict, "an operator named "+name+" already exists", err)
	} else if err != nil {
		return err
	}
	server.SetAuditTarget(r, name+" as "+role)
	return done(w, r, ActionUserAdd, "operators")
}

// target reads {user}, names it in the audit row and refuses the admin's
// own account when self is not allowed (no locking oneself out).
func (f *Feature) target(r *http.Request, p *auth.Principal, self selfRule) (store.User, error) {
	id, err := strconv.ParseInt(r.PathValue("user"), 10, 64)
	if err != nil {
		return store.User{}, httpx.Errorf(http.StatusNotFound, "no operator %q", r.PathValue("user"))
	}
	u, err := f.deps.Store.UserByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, httpx.Wrap(http.StatusNotFound, "that operator does not exist (any more)", err)
	} else if err != nil {
		return store.User{}, err
	}
	server.SetAuditTarget(r, u.Name)
	if self == notSelf && u.ID == p.UserID {
		return store.User{}, httpx.Errorf(http.StatusConflict, "you cannot do that to your own account; ask another admin")
	}
	return u, nil
}

// selfRule says whether an admin may apply a change to their own account.
type selfRule int

const (
	notSelf   selfRule = iota // refused on one's own account (role, disable)
	selfAllow                 // allowed (password, grants)
)

// setRole serves POST /admin/users/{user}/role.
func (f *Feature) setRole(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	u, err := f.target(r, p, notSelf)
	if err != nil {
		return err
	}
	role := r.PostFormValue("role")
	if err := checkRole(role); err != nil {
		return err
	}
	server.SetAuditTarget(r, u.Name+": "+u.Role+" → "+role)
	if err := f.deps.Store.SetRole(r.Context(), u.ID, role); err != nil {
		return err
	}
	return done(w, r, ActionUserRole, "operators")
}

// setUserDisabled serves POST /admin/users/{user}/disabled (disabled=true|false).
func (f *Feature) setUserDisabled(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	u, err := f.target(r, p, notSelf)
	if err != nil {
		return err
	}
	switch r.PostFormValue("disabled") {
	case "true":
		server.SetAuditTarget(r, u.Name+": disabled")
		err = f.deps.Store.DisableUser(r.Context(), u.ID)
	case "false":
		server.SetAuditTarget(r, u.Name+": enabled")
		err = f.deps.Store.EnableUser(r.Context(), u.ID)
	default:
		return httpx.Errorf(http.StatusBadRequest, "disabled must be true or false")
	}
	if err != nil {
		return err
	}
	return done(w, r, ActionUserDisable, "operators")
}

// setPassword serves POST /admin/users/{user}/password; the operator's
// sessions end.
func (f *Feature) setPassword(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	u, err := f.target(r, p, selfAllow)
	if err != nil {
		return err
	}
	h, err := f.hash(r.Context(), r.PostFormValue("password"))
	if err != nil {
		return err
	}
	if err := f.deps.Store.SetPassword(r.Context(), u.ID, h); err != nil {
		return err
	}
	return done(w, r, ActionUserPassword, "operators")
}

// setGrants serves POST /admin/users/{user}/grants: the licenses checked
// (license=… repeated) become exactly the operator's grants.
func (f *Feature) setGrants(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	u, err := f.target(r, p, selfAllow)
	if err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		return httpx.Wrap(http.StatusBadRequest, "the form could not be read", err)
	}
	licenses := slices.Compact(slices.Sorted(slices.Values(r.PostForm["license"])))
	for _, l := range licenses {
		if !wire.ValidLicenseID(l) {
			return httpx.Errorf(http.StatusBadRequest, "%q is not a license id", l)
		}
	}
	server.SetAuditTarget(r, u.Name+": "+grantList(licenses))
	if err := f.deps.Store.SetGrants(r.Context(), u.ID, licenses); errors.Is(err, store.ErrNotFound) {
		return httpx.Wrap(http.StatusNotFound, "one of those licenses does not exist (any more)", err)
	} else if err != nil {
		return err
	}
	return done(w, r, ActionGrantSet, "operators")
}

func grantList(licenses []string) string {
	if len(licenses) == 0 {
		return "no licenses"
	}
	return strings.Join(licenses, ", ")
}
