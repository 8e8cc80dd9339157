package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// stage is one step's staging directory: root/.corrosion-install/step-*,
// on the root's file system so that its files reach the game's by rename.
type stage struct {
	root string // the instance root
	dir  string // the stage's absolute path
	rel  string // the stage's path relative to the root, slash-separated
}

// newStage creates a fresh staging directory inside root.
func newStage(root string) (*stage, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fsError("open the instance root", err)
	}
	defer r.Close()
	if err := r.Mkdir(stagingDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fsError("create the staging directory", err)
	}
	if fi, err := r.Lstat(stagingDir); err != nil || !fi.IsDir() {
		return nil, &Error{Code: CodeConflict, Msg: fmt.Sprintf("%s in the instance root is not a directory", stagingDir)}
	}
	dir, err := os.MkdirTemp(filepath.Join(root, stagingDir), "step-")
	if err != nil {
		return nil, fsError("create the staging directory", err)
	}
	return &stage{root: root, dir: dir, rel: stagingDir + "/" + filepath.Base(dir)}, nil
}

// remove deletes the stage, and the staging directory when it is empty.
func (s *stage) remove() {
	_ = os.RemoveAll(s.dir)
	_ = os.Remove(filepath.Join(s.root, stagingDir)) // fails while another stage is in it
}

// move is one file to rename into place.
type move struct{ from, to string }

// place moves the tree at from (relative to root) into into, through
// os.Root so nothing lands outside the root. Everything is checked first:
// a file where a directory is (or the reverse) fails before anything
// moved. An existing file is replaced when overwrite, else kept. It
// returns how many files it moved.
func place(root, from, into string, overwrite bool) (int, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return 0, fsError("open the instance root", err)
	}
	defer r.Close()
	var dirs []string
	var moves []move
	err = fs.WalkDir(r.FS(), from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := p[len(from):]
		target := path.Join(".", into, rel)
		fi, serr := r.Stat(target)
		switch {
		case serr != nil && !errors.Is(serr, fs.ErrNotExist):
			return &Error{Code: CodeUnsafeArchive, Msg: fmt.Sprintf("place %s: %v", target, serr), Err: serr}
		case d.IsDir():
			if serr == nil && !fi.IsDir() {
				return &Error{Code: CodeConflict, Msg: fmt.Sprintf("place: %s is a file, the download has a directory there; nothing was installed", target)}
			}
			dirs = append(dirs, target)
		case !d.Type().IsRegular():
			return &Error{Code: CodeUnsafeArchive, Msg: fmt.Sprintf("place: %s is not a regular file", p)}
		case serr == nil && !fi.Mode().IsRegular():
			return &Error{Code: CodeConflict, Msg: fmt.Sprintf("place: %s exists and is not a regular file; nothing was installed", target)}
		case serr == nil && !overwrite:
		default:
			moves = append(moves, move{from: p, to: target})
		}
		return nil
	})
	if err != nil {
		var ie *Error
		if errors.As(err, &ie) {
			return 0, ie
		}
		return 0, fsError("place the staged files", err)
	}
	for _, d := range dirs {
		if err := r.MkdirAll(d, 0o755); err != nil {
			return 0, fsError("place "+d, err)
		}
	}
	for i, m := range moves {
		if err := r.Rename(m.from, m.to); err != nil {
			return i, fsError("place "+m.to, err)
		}
	}
	return len(moves), nil
}
