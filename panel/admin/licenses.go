package admin

import (
	"errors"
	"net/http"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
)

// addLicense serves POST /admin/licenses: id, label.
func (f *Feature) addLicense(w http.ResponseWriter, r *http.Request, _ *auth.Principal) error {
	id, label := r.PostFormValue("id"), r.PostFormValue("label")
	server.SetAuditTarget(r, id)
	if len(label) > store.MaxLicenseLabel {
		return httpx.Errorf(http.StatusBadRequest, "a label may have at most %d bytes", store.MaxLicenseLabel)
	}
	err := f.deps.Store.CreateLicense(r.Context(), id, label)
	switch {
	case errors.Is(err, store.ErrInvalidLicenseID):
		return httpx.Wrap(http.StatusBadRequest, "a license id is 1 to 64 letters, digits, '-' or '_'", err)
	case errors.Is(err, store.ErrLicenseExists):
		return httpx.Wrap(http.StatusConflict, "license "+id+" already exists (enable it in the list if it is disabled)", err)
	case err != nil:
		return err
	}
	return done(w, r, ActionLicenseAdd, "licenses")
}

// setLicenseDisabled serves POST /admin/licenses/{license}/disabled.
func (f *Feature) setLicenseDisabled(w http.ResponseWriter, r *http.Request, _ *auth.Principal) error {
	id := r.PathValue("license")
	var state store.LicenseState
	switch r.PostFormValue("disabled") {
	case "true":
		state = store.LicenseDisabled
		server.SetAuditTarget(r, "disabled")
	case "false":
		state = store.LicenseEnabled
		server.SetAuditTarget(r, "enabled")
	default:
		return httpx.Errorf(http.StatusBadRequest, "disabled must be true or false")
	}
	if err := f.deps.Store.SetLicenseDisabled(r.Context(), id, state); errors.Is(err, store.ErrNotFound) {
		return httpx.Wrap(http.StatusNotFound, "license "+id+" does not exist", err)
	} else if err != nil {
		return err
	}
	return done(w, r, ActionLicenseDisable, "licenses")
}

// setLicenseLabel serves POST /admin/licenses/{license}/label.
func (f *Feature) setLicenseLabel(w http.ResponseWriter, r *http.Request, _ *auth.Principal) error {
	id, label := r.PathValue("license"), r.PostFormValue("label")
	server.SetAuditTarget(r, label)
	if len(label) > store.MaxLicenseLabel {
		return httpx.Errorf(http.StatusBadRequest, "a label may have at most %d bytes", store.MaxLicenseLabel)
	}
	if err := f.deps.Store.SetLicenseLabel(r.Context(), id, label); errors.Is(err, store.ErrNotFound) {
		return httpx.Wrap(http.StatusNotFound, "license "+id+" does not exist", err)
	} else if err != nil {
		return err
	}
	return done(w, r, ActionLicenseLabel, "licenses")
}
