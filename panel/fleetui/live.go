package fleetui

import (
	"net/http"
	"strconv"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/server"
)

// maxSinceAge bounds the since parameter of a live stream: an older page
// is sent a refetch rather than a long snapshot.
const maxSinceAge = 10 * time.Minute

// liveFleet serves GET /live/fleet: every visible host's row updates.
func (f *Feature) liveFleet(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	if f.d.Live == nil {
		return httpx.Errorf(http.StatusServiceUnavailable, "live updates are not available on this panel")
	}
	return f.d.Live.Serve(w, r, p, livestate.Subscription{View: livestate.ViewFleet, Since: since(r)})
}

// liveHost serves GET /live/hosts/{license}[?instance=id]: a host page's
// updates, or with instance an instance page's.
func (f *Feature) liveHost(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	if f.d.Live == nil {
		return httpx.Errorf(http.StatusServiceUnavailable, "live updates are not available on this panel")
	}
	license, _, err := server.PathIDs(r)
	if err != nil {
		return err
	}
	sub := livestate.Subscription{View: livestate.ViewHost, License: license, Since: since(r)}
	if id := r.URL.Query().Get("instance"); id != "" {
		if !wire.ValidInstanceID(id) {
			return httpx.Errorf(http.StatusNotFound, "there is no instance %q", id)
		}
		sub.View, sub.Instance = livestate.ViewInstance, id
	}
	return f.d.Live.Serve(w, r, p, sub)
}

// since reads a stream's since parameter (Unix ms of the page's render).
// Missing: the stream sends only what happens next; malformed or older
// than maxSinceAge: what changed in the last maxSinceAge.
func since(r *http.Request) time.Time {
	v := r.URL.Query().Get("since")
	if v == "" {
		return time.Time{}
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	now := time.Now()
	t := time.UnixMilli(ms)
	if err != nil || t.Before(now.Add(-maxSinceAge)) {
		return now.Add(-maxSinceAge)
	}
	if t.After(now) {
		return now
	}
	return t
}
