package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/web/ui"
)

// The request context of a host or instance page, shared by the feature
// packages that serve its tabs (fleetui, console, files): they import this
// package, never each other.

// PathIDs returns the request's {license} and, when its route's pattern
// names one, its {instance}: 404 for ids that cannot name anything on the
// wire (nothing with such a name exists).
func PathIDs(r *http.Request) (license, instance string, err error) {
	license, instance = r.PathValue("license"), r.PathValue("instance")
	if !wire.ValidLicenseID(license) {
		return "", "", httpx.Errorf(http.StatusNotFound, "there is no host %q", license)
	}
	if strings.Contains(r.Pattern, "{instance}") && !wire.ValidInstanceID(instance) {
		return "", "", httpx.Errorf(http.StatusNotFound, "there is no instance %q on license %q", instance, license)
	}
	return license, instance, nil
}

// WhyNot is why p may not act on the license, in words ("you are a
// viewer"), or "" when it may. license "" asks about the role alone. It
// is the one wording of a refusal: the server's Need check and every
// page's disabled controls use it.
func WhyNot(p *auth.Principal, license string) string {
	switch {
	case p == nil:
		return "you are not logged in"
	case p.Role == auth.RoleViewer:
		return WhyViewer
	case license != "" && !p.CanAct(license):
		return noGrant(license)
	}
	return ""
}

// WhyViewer is WhyNot's answer for a viewer (the live streams render it
// into the power buttons of those who may only view).
const WhyViewer = "you are a viewer"

// noGrant is the refusal of a license p holds no grant for.
func noGrant(license string) string { return "you have no grant for license " + license }

// IsHTMX reports whether the request came from htmx (answer with a
// fragment, a status or an HX-Redirect rather than a whole page).
func IsHTMX(r *http.Request) bool { return r.Header.Get("HX-Request") == "true" }

// HeadFunc fills the instance frame's header (state, host, power buttons)
// for a principal; panel/fleetui provides it from the store.
type HeadFunc func(ctx context.Context, p *auth.Principal, license, instance string) (ui.InstanceHead, error)

// Head is the instance header from head, or MinimalHead when head is nil
// (a panel wired without the fleet pages).
func (head HeadFunc) Head(ctx context.Context, p *auth.Principal, license, instance string) (ui.InstanceHead, error) {
	if head != nil {
		return head(ctx, p, license, instance)
	}
	return MinimalHead(p, license, instance), nil
}

// Frame reads the request's instance (PathIDs) and fills its header: the
// start of every instance tab.
func (head HeadFunc) Frame(r *http.Request, p *auth.Principal) (ui.InstanceHead, error) {
	license, instance, err := PathIDs(r)
	if err != nil {
		return ui.InstanceHead{}, err
	}
	return head.Head(r.Context(), p, license, instance)
}

// MinimalHead is an instance header with the ids and the principal's
// rights only.
func MinimalHead(p *auth.Principal, license, instance string) ui.InstanceHead {
	why := WhyNot(p, license)
	return ui.InstanceHead{License: license, Instance: instance, HostOnline: true, CanAct: why == "", ViewerWhy: why}
}
