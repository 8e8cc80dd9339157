package files

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/corrosion/corrosion/agent/files"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/web/ui"
)

// requestOverhead is room left in a NATS message for the request's JSON
// around a file's content.
const requestOverhead = 8 << 10

func contextFor(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), agentTimeout)
}

// auditedContext names what the request acts on for its audit row and
// bounds its agent requests.
func auditedContext(r *http.Request, target string) (context.Context, context.CancelFunc) {
	server.SetAuditTarget(r, target)
	return contextFor(r)
}

func queryEscape(s string) string { return url.QueryEscape(s) }

// uploadMax is the largest upload on this panel's NATS connection.
func (f *Feature) uploadMax() int64 { return UploadMax(f.NC.MaxPayload()) }

// UploadMax is the largest file fm_save can carry in one NATS message of
// maxPayload bytes (base64 takes 4 bytes per 3): 767 KiB with NATS's
// default 1 MiB.
func UploadMax(maxPayload int64) int64 { return (maxPayload - requestOverhead) / 4 * 3 }

// save serves POST …/files/save: the editor's text (fields path, content,
// eol) written over the file.
func (f *Feature) save(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, instance, fp, err := postedTarget(r, "path", "save")
	if err != nil {
		return err
	}
	server.SetAuditTarget(r, display(fp))
	content := r.PostFormValue("content")
	if r.PostFormValue("eol") != "crlf" { // browsers send a textarea's lines with CRLF
		content = strings.ReplaceAll(content, "\r\n", "\n")
	}
	if enc, _ := json.Marshal(content); int64(len(enc)) > f.NC.MaxPayload()-requestOverhead {
		return httpx.Errorf(http.StatusRequestEntityTooLarge, "the text is too large to save through the panel (at most about %s)", ui.FileSize(f.uploadMax()))
	}
	ctx, cancel := contextFor(r)
	defer cancel()
	var rep files.SaveReply
	if err := f.call(ctx, license, instance, wire.FuncFMSave, map[string]string{"path": fp, "content": content}, &rep); err != nil {
		return err
	}
	if server.IsHTMX(r) {
		size, modified := rep.Size, time.Now()
		var st files.StatReply // the header shows what the agent now has
		if err := f.call(ctx, license, instance, wire.FuncFMStat, map[string]string{"path": fp}, &st); err == nil {
			size, modified = st.Size, st.Modified
		}
		return server.Render(w, r, http.StatusOK, ui.FileSaved(tabURL(license, instance, ""), fp, size, modified))
	}
	http.Redirect(w, r, viewURL(license, instance, fp)+"&done=saved", http.StatusSeeOther)
	return nil
}

// upload serves POST …/files/upload: a multipart file (field "file") into
// folder "dir"; an existing file is replaced only with "replace" set.
func (f *Feature) upload(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, instance, err := server.PathIDs(r)
	if err != nil {
		return err
	}
	max := f.uploadMax()
	r.Body = http.MaxBytesReader(w, r.Body, max+1<<20)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return httpx.Errorf(http.StatusRequestEntityTooLarge, "the upload is larger than %s, the most the panel can send", ui.FileSize(max))
		}
		return httpx.Wrap(http.StatusBadRequest, "the upload could not be read; choose a file and try again", err)
	}
	defer r.MultipartForm.RemoveAll()
	// The server's input check reads url-encoded forms only: this body's
	// fields and file name get the same check here.
	if err := httpx.CheckMultipart(r.MultipartForm); err != nil {
		return err
	}
	dir, err := CleanPath(r.FormValue("dir"))
	if err != nil {
		return err
	}
	data, name, err := uploadedFile(r, max)
	if err != nil {
		return err
	}
	fp := join(dir, name)
	ctx, cancel := auditedContext(r, display(fp))
	defer cancel()
	if r.FormValue("replace") == "" {
		if err := f.mustNotExist(ctx, license, instance, fp); err != nil {
			return err
		}
	}
	args := map[string]string{"path": fp, "content": base64.StdEncoding.EncodeToString(data), "encoding": files.EncodingBase64}
	if err := f.call(ctx, license, instance, wire.FuncFMSave, args, nil); err != nil {
		return err
	}
	done(w, r, license, instance, dir, "uploaded", fp)
	return nil
}

func uploadedFile(r *http.Request, max int64) (data []byte, name string, err error) {
	file, fh, err := r.FormFile("file")
	if err != nil {
		return nil, "", httpx.Errorf(http.StatusBadRequest, "choose a file to upload")
	}
	defer file.Close()
	name, err = uploadName(fh)
	if err != nil {
		return nil, "", err
	}
	if fh.Size > max {
		return nil, "", httpx.Errorf(http.StatusRequestEntityTooLarge, "%s is %s; the panel can upload at most %s", name, ui.FileSize(fh.Size), ui.FileSize(max))
	}
	data, err = io.ReadAll(io.LimitReader(file, max+1))
	if err != nil {
		return nil, "", httpx.Wrap(http.StatusBadRequest, "the upload could not be read", err)
	}
	return data, name, nil
}

// uploadName is the uploaded file's own name, without any folder a
// browser may send.
func uploadName(fh *multipart.FileHeader) (string, error) {
	name := path.Base(strings.ReplaceAll(fh.Filename, "\\", "/"))
	c, err := CleanPath(name)
	if err != nil {
		return "", err
	}
	if c == "" || strings.Contains(c, "/") {
		return "", httpx.Errorf(http.StatusBadRequest, "the uploaded file has no usable name")
	}
	return c, nil
}

// mustNotExist refuses a path that already exists.
func (f *Feature) mustNotExist(ctx context.Context, license, instance, fp string) error {
	err := f.call(ctx, license, instance, wire.FuncFMStat, map[string]string{"path": fp}, nil)
	switch {
	case err == nil:
		return httpx.Errorf(http.StatusConflict, "%s already exists; tick \"replace\" to overwrite it", display(fp))
	case agentCode(err) == files.CodeNotFound:
		return nil
	}
	return err
}

// newEntry reads a create form: folder "dir" and the new entry's "name"
// (what: the operation, for messages), and names the new path in the audit.
func newEntry(r *http.Request, what string) (license, instance, dir, fp string, err error) {
	if license, instance, err = server.PathIDs(r); err != nil {
		return
	}
	if dir, err = CleanPath(r.PostFormValue("dir")); err != nil {
		return
	}
	name, err := cleanTarget(r.PostFormValue("name"), what)
	if err != nil {
		return
	}
	fp = join(dir, name)
	server.SetAuditTarget(r, display(fp))
	return license, instance, dir, fp, nil
}

// mkdir serves POST …/files/mkdir: folder "name" inside "dir".
func (f *Feature) mkdir(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, instance, dir, fp, err := newEntry(r, "new folder")
	if err != nil {
		return err
	}
	ctx, cancel := contextFor(r)
	defer cancel()
	var rep files.MkdirReply
	if err := f.call(ctx, license, instance, wire.FuncFMMkdir, map[string]string{"path": fp}, &rep); err != nil {
		return err
	}
	if !rep.Created {
		return httpx.Errorf(http.StatusConflict, "the folder %s already exists", display(fp))
	}
	done(w, r, license, instance, dir, "created", fp)
	return nil
}

// newFile serves POST …/files/newfile: an empty file "name" inside "dir",
// never over an existing one; the editor opens on it.
func (f *Feature) newFile(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, instance, _, fp, err := newEntry(r, "new file")
	if err != nil {
		return err
	}
	ctx, cancel := contextFor(r)
	defer cancel()
	err = f.call(ctx, license, instance, wire.FuncFMSave, map[string]any{"path": fp, "content": "", "create": true}, nil)
	if agentCode(err) == files.CodeExists {
		return httpx.Errorf(http.StatusConflict, "%s already exists", display(fp))
	} else if err != nil {
		return err
	}
	redirect(w, r, viewURL(license, instance, fp))
	return nil
}
