// Package ui holds the panel's pages: templ components (*.templ with their
// generated *_templ.go, committed) and the embedded static assets (one
// stylesheet and small scripts in static, vendored htmx 2 and its SSE
// extension in third_party, both served under StaticPrefix). It
// renders what it is given and imports nothing of the panel's packages
// (DESIGN.md section 2: nothing but panel imports panel); the world's browser
// client (web/world) never imports it.
package ui

import (
	"embed"
	"net/http"

	"github.com/corrosion/corrosion/internal/webasset"
)

//go:embed static third_party
var staticFS embed.FS

// StaticPrefix is where Static is mounted.
const StaticPrefix = "/static/"

var staticAssets = webasset.New(staticFS, StaticPrefix, "static", "third_party")

// Asset returns the URL of a static file with a content-hash query, so
// that it can be cached for a year and still change with each build.
func Asset(name string) string { return staticAssets.URL(name) }

// Static serves the embedded assets under StaticPrefix. Responses are
// immutable for a year: every page links them through Asset.
func Static() http.Handler { return staticAssets.Handler() }
