package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// mapCacheControl lets clients and proxies keep the map for five minutes
// and then revalidate it by ETag: the map never changes while the world
// runs, but a world replaced on the same port may have another seed.
const mapCacheControl = "public, max-age=300"

// asset is a file rendered once at startup; immutable after newAsset.
type asset struct {
	body        []byte
	etag        string
	contentType string
}

func newAsset(body []byte, contentType string) asset {
	sum := sha256.Sum256(body)
	return asset{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`, contentType: contentType}
}

// renderMap renders /map.bin and /map.png from m.
func renderMap(m *terrain.Map) (bin, png asset, err error) {
	raw, err := m.MarshalBinary()
	if err != nil {
		return bin, png, fmt.Errorf("render map.bin: %w", err)
	}
	var buf bytes.Buffer
	if err := m.WritePNG(&buf); err != nil {
		return bin, png, fmt.Errorf("render map.png: %w", err)
	}
	return newAsset(raw, "application/octet-stream"), newAsset(buf.Bytes(), "image/png"), nil
}

// ServeHTTP serves the asset with its ETag; http.ServeContent answers
// If-None-Match with 304, HEAD without a body, and ranges.
func (a asset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", mapCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
