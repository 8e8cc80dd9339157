package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/corrosion/corrosion/agent/template"
)

// maxConfigBytes bounds a config file that is edited.
const maxConfigBytes = 16 << 20

// ApplyConfigs writes the spec's config file edits (template.Apply) into
// the files under root, through os.Root (a path never leaves the root). A
// missing file is created with its parents. Each file is replaced whole
// (a temporary file beside it, then a rename): a reader never sees it
// half-written, and a file whose edit fails is left as it was.
func ApplyConfigs(root string, configs []template.ConfigFile) error {
	if len(configs) == 0 {
		return nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fsError("open the instance root", err)
	}
	defer r.Close()
	for _, c := range configs {
		if err := applyConfig(r, c); err != nil {
			return err
		}
	}
	return nil
}

func applyConfig(r *os.Root, c template.ConfigFile) error {
	name := path.Clean(c.Path)
	var old []byte
	var mode fs.FileMode = 0o644
	fi, err := r.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return &Error{Code: CodeFailed, Msg: fmt.Sprintf("config file %s: %v", c.Path, err), Err: err}
	case !fi.Mode().IsRegular():
		return &Error{Code: CodeConflict, Msg: fmt.Sprintf("config file %s: not a regular file", c.Path)}
	case fi.Size() > maxConfigBytes:
		return &Error{Code: CodeFailed, Msg: fmt.Sprintf("config file %s: larger than %d bytes", c.Path, maxConfigBytes)}
	default:
		mode = fi.Mode().Perm()
		if old, err = r.ReadFile(name); err != nil {
			return &Error{Code: CodeFailed, Msg: fmt.Sprintf("config file %s: %v", c.Path, err), Err: err}
		}
	}
	out, err := template.Apply(c.Format, old, c.Set)
	if err != nil {
		return &Error{Code: CodeFailed, Msg: fmt.Sprintf("config file %s: %v", c.Path, err), Err: err}
	}
	if dir := path.Dir(name); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return fsError("config file "+c.Path, err)
		}
	}
	tmp := name + ".corrosion-tmp"
	if err := r.WriteFile(tmp, out, mode); err != nil {
		_ = r.Remove(tmp)
		return fsError("config file "+c.Path, err)
	}
	if err := r.Rename(tmp, name); err != nil {
		_ = r.Remove(tmp)
		return fsError("config file "+c.Path, err)
	}
	return nil
}
