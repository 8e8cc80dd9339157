// Package panel holds the panel's pages: templ components (*.templ with their
// generated *_templ.go, committed) and the embedded static assets (one
// stylesheet, vendored htmx 2 and its SSE extension, small scripts). It
// renders what it is given and imports nothing of the panel's packages
// (DESIGN.md section 2: nothing but panel imports panel); importers name it
// `ui`.
package panel

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"sync"
)

//go:embed static
var staticFS embed.FS

// StaticPrefix is where Static is mounted.
const StaticPrefix = "/static/"

var (
	hashOnce sync.Once
	hashes   map[string]string // file name → short content hash; immutable after hashOnce
)

// Asset returns the URL of a static file with a content-hash query, so
// that it can be cached for a year and still change with each build.
func Asset(name string) string {
	hashOnce.Do(func() {
		hashes = map[string]string{}
		_ = fs.WalkDir(staticFS, "static", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := staticFS.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			hashes[strings.TrimPrefix(path, "static/")] = hex.EncodeToString(sum[:6])
			return nil
		})
	})
	return StaticPrefix + name + "?v=" + hashes[name]
}

// Static serves the embedded assets under StaticPrefix. Responses are
// immutable for a year: every page links them through Asset.
func Static() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder
	}
	files := http.StripPrefix(StaticPrefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		files.ServeHTTP(w, r)
	})
}
