package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/corrosion/corrosion/agent/files"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/agent/wire"
)

// stagingDir is the directory inside the root under which each step
// downloads and unpacks before anything reaches the game's files.
const stagingDir = ".corrosion-install"

// httpSource runs an http step: download, check the SHA-256, stage, move.
func (in *Installer) httpSource(ctx context.Context, job *Job, h *template.HTTP) error {
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return &Error{Code: CodeDownload, Msg: fmt.Sprintf("download %q: not an http or https url", h.URL)}
	}
	job.say("http: %s", redactURL(u))
	return in.fetch(ctx, job, fetchSpec{url: h.URL, sha256: h.SHA256, name: path.Base(u.Path),
		extract: h.Extract, into: h.Into, overwrite: true})
}

// fetchSpec is one file to download and place.
type fetchSpec struct {
	url       string
	sha256    string // hex; "" when nobody published one (a GitHub asset without digest)
	name      string // the file's name when kept as downloaded
	extract   template.Extract
	into      string // relative to the root
	overwrite bool   // replace existing files (else they are kept)
}

// fetch downloads f into a fresh staging directory inside the root,
// checks it, unpacks it there and only then moves it into place.
func (in *Installer) fetch(ctx context.Context, job *Job, f fetchSpec) error {
	if f.into != "" && !filepath.IsLocal(filepath.FromSlash(f.into)) {
		return &Error{Code: CodeUnsafeArchive, Msg: fmt.Sprintf("into %q leaves the instance root", f.into)}
	}
	st, err := newStage(job.Root)
	if err != nil {
		return err
	}
	defer st.remove()
	archive := "download"
	switch f.extract {
	case template.ExtractZip:
		archive += ".zip"
	case template.ExtractTarGz:
		archive += ".tar.gz"
	default:
		if f.name == "" || f.name == "." || f.name == "/" || !filepath.IsLocal(f.name) || strings.ContainsAny(f.name, `\:`) {
			return &Error{Code: CodeDownload, Msg: fmt.Sprintf("download %q: its url names no file", f.url)}
		}
		if err := os.Mkdir(filepath.Join(st.dir, "out"), 0o755); err != nil {
			return fsError("stage the download", err)
		}
		archive = filepath.Join("out", f.name)
	}
	n, err := in.download(ctx, f, filepath.Join(st.dir, archive))
	if err != nil {
		return err
	}
	job.say("downloaded %d bytes%s", n, map[bool]string{true: ", sha256 verified"}[f.sha256 != ""])
	if f.extract != template.ExtractNone {
		if err := in.unpack(ctx, job, st, archive); err != nil {
			return err
		}
	}
	moved, err := place(job.Root, st.rel+"/out", f.into, f.overwrite)
	if err != nil {
		return err
	}
	job.say("placed %d files into %s", moved, displayInto(f.into))
	return nil
}

func displayInto(into string) string {
	if into == "" {
		return "the instance root"
	}
	return into
}

// download writes the body of f.url to dst, checking its size and SHA-256
// as it goes; dst is left for the stage's removal on error.
func (in *Installer) download(ctx context.Context, f fetchSpec, dst string) (int64, error) {
	resp, err := in.get(ctx, f.url, "")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, fsError("stage the download", err)
	}
	defer out.Close()
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, sum), io.LimitReader(resp.Body, in.maxDownload+1))
	switch {
	case err != nil && ctx.Err() != nil:
		return n, &Error{Code: CodeCanceled, Msg: "download canceled", Err: ctx.Err()}
	case files.IsDiskFull(err):
		return n, &Error{Code: CodeDiskFull, Msg: "download: no space left on the device", Err: err}
	case err != nil:
		return n, &Error{Code: CodeDownload, Msg: fmt.Sprintf("download %s: %v", f.url, err), Err: err}
	case n > in.maxDownload:
		return n, &Error{Code: CodeDownload, Msg: fmt.Sprintf("download %s: more than the limit of %d bytes", f.url, in.maxDownload)}
	}
	if err := out.Close(); err != nil {
		return n, fsError("stage the download", err)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); f.sha256 != "" && !strings.EqualFold(got, f.sha256) {
		return n, &Error{Code: CodeSHA256Mismatch,
			Msg: fmt.Sprintf("download %s: sha256 is %s, not the expected %s; nothing was installed", f.url, got, strings.ToLower(f.sha256))}
	}
	return n, nil
}

// get sends a GET and returns a 200 response.
func (in *Installer) get(ctx context.Context, rawURL, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, &Error{Code: CodeDownload, Msg: fmt.Sprintf("download %q: %v", rawURL, err), Err: err}
	}
	req.Header.Set("User-Agent", "corrosion-agent")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := in.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Code: CodeCanceled, Msg: "download canceled", Err: ctx.Err()}
		}
		return nil, &Error{Code: CodeDownload, Msg: fmt.Sprintf("download: %v", err), Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, &Error{Code: CodeDownload, Msg: fmt.Sprintf("download %s: the server answered %s", rawURL, resp.Status)}
	}
	return resp, nil
}

// unpack extracts the staged archive into the stage's out/ with agent/files'
// extractor (every entry checked before anything is written: no absolute
// names, no "..", no links or devices, size and count limits).
func (in *Installer) unpack(ctx context.Context, job *Job, st *stage, archive string) error {
	fm, err := files.New(st.dir, nil, in.extract, in.log)
	if err != nil {
		return &Error{Code: CodeFailed, Msg: fmt.Sprintf("unpack: %v", err), Err: err}
	}
	args, _ := json.Marshal(map[string]string{"func": wire.FuncFMExtract, "path": filepath.ToSlash(archive), "to": "out"})
	out, err := fm.Handle(ctx, wire.Request{Func: wire.FuncFMExtract, Args: args})
	if err != nil {
		return extractError(err)
	}
	if r, ok := out.(files.ExtractReply); ok {
		job.say("unpacked %d entries, %d bytes", r.Entries, r.Size)
	}
	return nil
}

// extractError maps the extractor's codes to install's.
func extractError(err error) error {
	var we *wire.Error
	if !errors.As(err, &we) {
		return &Error{Code: CodeFailed, Msg: "unpack: " + err.Error(), Err: err}
	}
	msg := "unpack: " + we.Msg + "; nothing was installed"
	switch {
	case files.IsDiskFull(err):
		return &Error{Code: CodeDiskFull, Msg: msg, Err: err}
	case we.Code == files.CodeOutsideRoot, we.Code == files.CodeInvalidPath:
		return &Error{Code: CodeUnsafeArchive, Msg: msg, Err: err}
	case we.Code == files.CodeInvalidArch:
		if strings.Contains(we.Msg, "only files and directories") {
			return &Error{Code: CodeUnsafeArchive, Msg: msg, Err: err}
		}
		return &Error{Code: CodeCorruptArchive, Msg: msg, Err: err}
	case we.Code == files.CodeTooLarge:
		return &Error{Code: CodeDownload, Msg: msg, Err: err}
	}
	return &Error{Code: CodeFailed, Msg: msg, Err: err}
}

// fsError is a file system error of step as an *Error.
func fsError(step string, err error) error {
	if files.IsDiskFull(err) {
		return &Error{Code: CodeDiskFull, Msg: step + ": no space left on the device", Err: err}
	}
	return &Error{Code: CodeFailed, Msg: fmt.Sprintf("%s: %v", step, err), Err: err}
}

// redactURL is u without user info or query (a signed URL's token).
func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}
