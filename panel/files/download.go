package files

import (
	"encoding/base64"
	"mime"
	"net/http"
	"path"
	"strconv"

	"github.com/corrosion/corrosion/agent/files"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
)

// Download chunk sizes: a chunk is read per request so that its reply
// fits a NATS message; a reply too large (text full of characters JSON
// escapes) is asked again in halves.
const (
	chunkStart = 256 << 10
	chunkMin   = 4 << 10
)

// download serves GET …/files/download?path=: the file as an attachment,
// read from the agent in chunks.
func (f *Feature) download(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	ctx, cancel := contextFor(r)
	defer cancel()
	t, err := f.statTarget(ctx, r, "download")
	if err != nil {
		return err
	}
	license, instance, fp, st := t.license, t.instance, t.path, t.stat
	if st.Type == files.TypeDir {
		return httpx.Errorf(http.StatusBadRequest, "%s is a folder: archive it first, then download the archive", display(fp))
	}
	first, err := f.chunk(r, license, instance, fp, 0, chunkStart)
	if err != nil {
		return err
	}
	h := w.Header()
	ctype := mime.TypeByExtension(path.Ext(st.Name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": st.Name}))
	h.Set("Content-Length", strconv.FormatInt(st.Size, 10))
	h.Set("Cache-Control", "no-store")
	f.stream(w, r, license, instance, fp, st.Size, first)
	return nil
}

// stream writes the file from its first chunk on; a failure half-way cuts
// the response short of its Content-Length, so the browser reports it.
func (f *Feature) stream(w http.ResponseWriter, r *http.Request, license, instance, fp string, size int64, data []byte) {
	var off int64
	for {
		if _, err := w.Write(data); err != nil {
			return
		}
		off += int64(len(data))
		if off >= size || len(data) == 0 {
			return
		}
		next, err := f.chunk(r, license, instance, fp, off, chunkStart)
		if err != nil {
			f.Log.Warn("download cut short", "path", fp, "offset", off, "err", err)
			return
		}
		data = next
	}
}

// chunk reads up to limit bytes at off, halving limit while the reply
// would not fit a NATS message.
func (f *Feature) chunk(r *http.Request, license, instance, fp string, off int64, limit int) ([]byte, error) {
	for {
		ctx, cancel := contextFor(r)
		var rd files.ReadReply
		err := f.call(ctx, license, instance, wire.FuncFMRead, map[string]any{"path": fp, "offset": off, "limit": limit}, &rd)
		cancel()
		if agentCode(err) == wire.CodeReplyTooLarge && limit > chunkMin {
			limit /= 2
			continue
		}
		if err != nil {
			return nil, err
		}
		if rd.Encoding == files.EncodingBase64 {
			b, err := base64.StdEncoding.DecodeString(rd.Content)
			if err != nil {
				return nil, httpx.Wrap(http.StatusBadGateway, "the agent sent a chunk that is not base64", err)
			}
			return b, nil
		}
		return []byte(rd.Content), nil
	}
}
