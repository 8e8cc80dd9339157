package world

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

// StaticPrefix is where the assets are served.
const StaticPrefix = "/client/static/"

// assetCache is how long a browser keeps an asset: a year, because every
// page links it with its content hash (Asset).
const assetCache = "public, max-age=31536000, immutable"

var (
	hashOnce sync.Once
	hashes   map[string]string // file name → short content hash; immutable after hashOnce
)

// Asset returns the URL of a static file with a content-hash query, so that
// it can be cached for a year and still change with each build.
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

// static serves the embedded assets under StaticPrefix: no directory
// listings, immutable for a year.
func static() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder
	}
	files := http.StripPrefix(StaticPrefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", assetCache)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
}
