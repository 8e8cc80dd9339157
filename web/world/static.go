package world

import (
	"embed"
	"net/http"

	"github.com/corrosion/corrosion/internal/webasset"
)

//go:embed static
var staticFS embed.FS

// StaticPrefix is where the assets are served.
const StaticPrefix = "/client/static/"

var staticAssets = webasset.New(staticFS, StaticPrefix, "static")

// Scripts are the client's scripts in the order the page loads them. Each
// is a classic deferred script that adds its part to window.corrosionWorld
// (deferred scripts run in document order), so that every one is linked
// through Asset with its own content hash: ES module imports would name
// unhashed URLs, which the year-long immutable caching would then pin.
var Scripts = []string{"proto.js", "conn.js", "map.js", "panel.js", "app.js"}

// Asset returns the URL of a static file with a content-hash query, so that
// it can be cached for a year and still change with each build.
func Asset(name string) string { return staticAssets.URL(name) }

// static serves the embedded assets under StaticPrefix: no directory
// listings, immutable for a year.
func static() http.Handler { return staticAssets.Handler() }
