package files

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/corrosion/corrosion/agent/files"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/web/ui"
)

// EditMax is the largest file the tab opens in its editor; bigger files
// are downloaded.
const EditMax = 512 << 10

// agentTimeout bounds one files.cmd request.
const agentTimeout = 30 * time.Second

// doneWords are the notes a listing shows after an operation.
var doneWords = map[string]string{
	"saved": "Saved", "uploaded": "Uploaded", "created": "Created folder", "renamed": "Renamed to",
	"deleted": "Deleted", "archived": "Archived to", "extracted": "Extracted into",
}

// list serves the files tab: one folder's entries. A path naming a file
// redirects to its view.
func (f *Feature) list(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	dir, err := CleanPath(r.URL.Query().Get("path")) // a bad path is refused before any lookup
	if err != nil {
		return err
	}
	head, err := f.Head.Frame(r, p)
	if err != nil {
		return err
	}
	license, instance := head.License, head.Instance
	v := f.filesView(p, head, license, instance, dir)
	if note, ok := doneWords[r.URL.Query().Get("done")]; ok {
		v.Flash = note + " " + display(strings.TrimPrefix(r.URL.Query().Get("target"), "/")) + "."
	}
	ctx, cancel := contextFor(r)
	defer cancel()
	var rep files.ListReply
	err = f.Agent.Files(ctx, license, instance, wire.FuncFMList, map[string]string{"path": dir}, &rep)
	switch {
	case agentCode(err) == files.CodeNotADirectory && dir != "":
		http.Redirect(w, r, viewURL(license, instance, dir), http.StatusSeeOther)
		return nil
	case err != nil:
		_, v.Error = agentc.Describe(err)
	default:
		v.Entries = entries(dir, rep.Entries)
	}
	return server.Render(w, r, http.StatusOK, ui.FilesPage(server.InstancePage(p, instance+" files"), v))
}

func (f *Feature) filesView(p *auth.Principal, head ui.InstanceHead, license, instance, dir string) ui.FilesView {
	return ui.FilesView{Head: head, Base: ui.InstanceURL(license, instance) + "/files", Dir: dir,
		Crumbs: crumbs(license, instance, dir), CanEdit: p.CanAct(license), Why: server.WhyNot(p, license),
		UploadMax: ui.FileSize(f.uploadMax())}
}

func entries(dir string, es []files.Entry) []ui.FileEntry {
	out := make([]ui.FileEntry, 0, len(es))
	for _, e := range es {
		out = append(out, ui.FileEntry{Name: e.Name, Path: join(dir, e.Name), Type: e.Type, Size: e.Size,
			Mode: e.Mode, Modified: e.Modified, IsArchive: isArchive(e.Name)})
	}
	return out
}

func isArchive(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".zip") || strings.HasSuffix(n, ".tar.gz") || strings.HasSuffix(n, ".tgz")
}

// crumbs are the breadcrumbs of a folder: the root, then each folder.
func crumbs(license, instance, dir string) []ui.Crumb {
	out := []ui.Crumb{{Name: "/", URL: tabURL(license, instance, "")}}
	if dir == "" {
		return out
	}
	acc := ""
	for _, s := range strings.Split(dir, "/") {
		acc = join(acc, s)
		out = append(out, ui.Crumb{Name: s, URL: tabURL(license, instance, acc)})
	}
	return out
}

func viewURL(license, instance, p string) string {
	return ui.InstanceURL(license, instance) + "/files/view?path=" + queryEscape(p)
}

// view serves a file: text in an editor (read-only for viewers), binary
// and big files as a download link.
func (f *Feature) view(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	ctx, cancel := contextFor(r)
	defer cancel()
	t, err := f.statTarget(ctx, r, "view")
	if err != nil {
		return err
	}
	license, instance, fp, st := t.license, t.instance, t.path, t.stat
	if st.Type == files.TypeDir {
		http.Redirect(w, r, tabURL(license, instance, fp), http.StatusSeeOther)
		return nil
	}
	head, err := f.Head.Head(r.Context(), p, license, instance)
	if err != nil {
		return err
	}
	v := ui.FileEditView{FilesView: f.filesView(p, head, license, instance, parent(fp)), Path: fp, Size: st.Size,
		Modified: st.Modified, Saved: r.URL.Query().Get("done") == "saved"}
	v.Crumbs = append(v.Crumbs, ui.Crumb{Name: st.Name})
	if st.Size > EditMax {
		v.TooLarge = true
	} else if err := f.readText(ctx, license, instance, fp, &v); err != nil {
		return err
	}
	return server.Render(w, r, http.StatusOK, ui.FileEditPage(server.InstancePage(p, st.Name), v))
}

// readText fills the editor from the file, or marks it binary.
func (f *Feature) readText(ctx context.Context, license, instance, fp string, v *ui.FileEditView) error {
	var rd files.ReadReply
	err := f.call(ctx, license, instance, wire.FuncFMRead, map[string]any{"path": fp}, &rd)
	switch code := agentCode(err); {
	case code == wire.CodeReplyTooLarge || code == files.CodeTooLarge:
		v.TooLarge = true
		return nil
	case err != nil:
		return err
	case rd.Encoding != files.EncodingUTF8:
		v.Binary = true
		return nil
	}
	v.Text = rd.Content
	v.EOL = "lf"
	if strings.Contains(rd.Content, "\r\n") {
		v.EOL = "crlf"
	}
	return nil
}
