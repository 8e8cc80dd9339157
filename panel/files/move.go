package files

import (
	"net/http"
	"strings"

	"github.com/corrosion/corrosion/agent/files"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
)

// rename serves POST …/files/rename: "from" to "to" (a full path, or a
// bare name for the same folder).
func (f *Feature) rename(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, instance, from, err := postedTarget(r, "from", "rename")
	if err != nil {
		return err
	}
	to, err := sameFolder(from, r.PostFormValue("to"), "rename to")
	if err != nil {
		return err
	}
	server.SetAuditTarget(r, display(from)+" → "+display(to))
	if to == from {
		return httpx.Errorf(http.StatusBadRequest, "the new name is the old one")
	}
	ctx, cancel := contextFor(r)
	defer cancel()
	if err := f.call(ctx, license, instance, wire.FuncFMRename, map[string]string{"from": from, "to": to}, nil); err != nil {
		return err
	}
	done(w, r, license, instance, parent(to), "renamed", to)
	return nil
}

// sameFolder resolves a target: a bare name stays in from's folder, a path
// with a slash is taken from the root.
func sameFolder(from, to, what string) (string, error) {
	if !strings.Contains(strings.Trim(to, "/"), "/") && !strings.HasPrefix(to, "/") {
		to = join(parent(from), to)
	}
	return cleanTarget(to, what)
}

// remove serves POST …/files/delete: a file or a folder tree.
func (f *Feature) remove(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, instance, fp, err := postedTarget(r, "path", "delete")
	if err != nil {
		return err
	}
	ctx, cancel := auditedContext(r, display(fp))
	defer cancel()
	if err := f.call(ctx, license, instance, wire.FuncFMDelete, map[string]string{"path": fp}, nil); err != nil {
		return err
	}
	done(w, r, license, instance, parent(fp), "deleted", fp)
	return nil
}

// archive serves POST …/files/archive: "paths" (one or more) into the
// archive "to" (.zip, .tar.gz or .tgz).
func (f *Feature) archive(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, instance, err := server.PathIDs(r)
	if err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		return httpx.Wrap(http.StatusBadRequest, "the form could not be read", err)
	}
	var paths []string
	for _, raw := range r.PostForm["paths"] {
		c, err := cleanTarget(raw, "archive")
		if err != nil {
			return err
		}
		paths = append(paths, c)
	}
	if len(paths) == 0 {
		return httpx.Errorf(http.StatusBadRequest, "choose what to archive")
	}
	to, err := sameFolder(paths[0], r.PostFormValue("to"), "archive to")
	if err != nil {
		return err
	}
	server.SetAuditTarget(r, display(strings.Join(paths, ", /"))+" → "+display(to))
	if !isArchive(to) {
		return httpx.Errorf(http.StatusBadRequest, "name the archive .zip, .tar.gz or .tgz")
	}
	ctx, cancel := contextFor(r)
	defer cancel()
	var rep files.ArchiveReply
	if err := f.call(ctx, license, instance, wire.FuncFMArchive, map[string]any{"paths": paths, "to": to}, &rep); err != nil {
		return err
	}
	done(w, r, license, instance, parent(to), "archived", to)
	return nil
}

// extract serves POST …/files/extract: archive "path" into folder "to".
func (f *Feature) extract(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, instance, from, err := postedTarget(r, "path", "extract")
	if err != nil {
		return err
	}
	to, err := sameFolder(from, r.PostFormValue("to"), "extract into")
	if err != nil {
		return err
	}
	ctx, cancel := auditedContext(r, display(from)+" → "+display(to))
	defer cancel()
	var rep files.ExtractReply
	if err := f.call(ctx, license, instance, wire.FuncFMExtract, map[string]string{"path": from, "to": to}, &rep); err != nil {
		return err
	}
	done(w, r, license, instance, to, "extracted", to)
	return nil
}
