// Package webasset serves folders of embedded static files under one URL
// prefix: URLs carry a short content hash (`?v=`), so responses are cached
// as immutable for a year and still change with each build, and folders are
// never listed. A building block without domain logic for web/ui and
// web/world; it imports none of the project's components.
package webasset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

// Set is one or more folders of assets mounted at one prefix. Safe for
// concurrent use.
type Set struct {
	files  layers // immutable after New: the folders' contents
	prefix string // immutable after New: URL path prefix, ending in "/"

	hashOnce sync.Once
	hashes   map[string]string // file path in the folders → short content hash; immutable after hashOnce
}

// New returns the Set of the folders dirs of fsys (an embed.FS and its
// embedded folders) served under prefix, which should end in "/". The
// folders share one URL space, looked up in order: a component's own
// assets and the third-party ones it vendors live apart in the tree (the
// vendored ones under third_party) and are served side by side. It panics
// when a dir is not a valid path: the embed pattern names it at build time.
func New(fsys fs.FS, prefix string, dirs ...string) *Set {
	var files layers
	for _, dir := range dirs {
		sub, err := fs.Sub(fsys, dir)
		if err != nil {
			panic("webasset: " + err.Error())
		}
		files = append(files, sub)
	}
	return &Set{files: files, prefix: prefix}
}

// layers is folders seen as one: a name opens in the first that has it.
type layers []fs.FS

// Open implements fs.FS.
func (l layers) Open(name string) (fs.File, error) {
	err := error(&fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist})
	for _, f := range l {
		var file fs.File
		if file, err = f.Open(name); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return file, err
		}
	}
	return nil, err
}

// URL returns the URL of the asset name (a path inside a folder, such as
// "app.css") with its content-hash query: prefix + name + "?v=" + hash. An
// unknown name gets an empty hash.
func (s *Set) URL(name string) string {
	s.hashOnce.Do(s.hashAll)
	return s.prefix + name + "?v=" + s.hashes[name]
}

// hashAll fills hashes with the short SHA-256 of every file in the folders
// (of the one served, where two folders hold the same name).
func (s *Set) hashAll() {
	s.hashes = map[string]string{}
	for _, layer := range s.files {
		_ = fs.WalkDir(layer, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if _, seen := s.hashes[path]; seen {
				return nil
			}
			b, err := fs.ReadFile(layer, path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			s.hashes[path] = hex.EncodeToString(sum[:hashBytes])
			return nil
		})
	}
}

// Handler serves the folders under the prefix: immutable for a year
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
