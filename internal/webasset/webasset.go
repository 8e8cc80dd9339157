// Package webasset serves a folder of embedded static files under a URL
// prefix: URLs carry a short content hash (`?v=`), so responses are cached
// as immutable for a year and still change with each build, and folders are
// never listed. A building block without domain logic for web/ui and
// web/world; it imports none of the project's components.
package webasset

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"sync"
)

// CacheControl is the caching of every asset response: a year, immutable,
// because every page links assets through Set.URL.
const CacheControl = "public, max-age=31536000, immutable"

// hashBytes is how much of a file's SHA-256 its URL carries (12 hex digits).
const hashBytes = 6

// Set is one folder of assets mounted at one prefix. Safe for concurrent use.
type Set struct {
	files  fs.FS  // immutable after New: the folder's contents
	prefix string // immutable after New: URL path prefix, ending in "/"

	hashOnce sync.Once
	hashes   map[string]string // file path in the folder → short content hash; immutable after hashOnce
}

// New returns the Set of folder dir of fsys (an embed.FS and its embedded
// folder) served under prefix, which should end in "/". It panics when dir
// is not a valid path: the embed pattern names it at build time.
func New(fsys fs.FS, dir, prefix string) *Set {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic("webasset: " + err.Error())
	}
	return &Set{files: sub, prefix: prefix}
}

// URL returns the URL of the asset name (a path inside the folder, such as
// "app.css") with its content-hash query: prefix + name + "?v=" + hash. An
// unknown name gets an empty hash.
func (s *Set) URL(name string) string {
	s.hashOnce.Do(s.hashAll)
	return s.prefix + name + "?v=" + s.hashes[name]
}

// hashAll fills hashes with the short SHA-256 of every file in the folder.
func (s *Set) hashAll() {
	s.hashes = map[string]string{}
	_ = fs.WalkDir(s.files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(s.files, path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		s.hashes[path] = hex.EncodeToString(sum[:hashBytes])
		return nil
	})
}

// Handler serves the folder under the prefix: immutable for a year
// (CacheControl), nosniff, 404 for folders instead of a listing.
func (s *Set) Handler() http.Handler {
	files := http.StripPrefix(s.prefix, http.FileServerFS(s.files))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		w.Header().Set("Cache-Control", CacheControl)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
}
