package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/corrosion/corrosion/internal/atomicfile"
)

// session is one install or uninstall run: its options and where it
// prints. Steps print one line each: the action ("would " first in a dry
// run), or "ok"/"skip" when there is nothing to do.
type session struct {
	steps
	o   Options // immutable after newSession; Root absolute or ""
	acc account // the service account, once known (ensureUser)
}

// errNotRoot: a command that changes the real system was run without root.
var errNotRoot = errors.New("needs root: run it with sudo")

func newSession(o Options, verb string) (*session, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.ConfigPath == "" {
		o.ConfigPath = defaultConfigPath()
	}
	if !filepath.IsAbs(o.ConfigPath) {
		return nil, fmt.Errorf("%s: config path %q is not absolute", verb, o.ConfigPath)
	}
	if o.Root != "" {
		abs, err := absRoot(verb, o.Root)
		if err != nil {
			return nil, err
		}
		o.Root = abs
	}
	if o.Root == "" && !o.DryRun && os.Geteuid() != 0 {
		return nil, fmt.Errorf("%s %w", verb, errNotRoot)
	}
	s := &session{steps: steps{out: o.Out, dry: o.DryRun}, o: o}
	if o.Root != "" {
		s.printf("root %s: every path below lives under it; nothing is started", o.Root)
	}
	if o.DryRun {
		s.printf("dry run: nothing is changed")
	}
	return s, nil
}

// host is where the system path p lives: under Root when it is set.
func (s *session) host(p string) string {
	if s.o.Root == "" {
		return p
	}
	return filepath.Join(s.o.Root, p)
}

func (s *session) ok(format string, args ...any)   { s.printf("ok   "+format, args...) }
func (s *session) skip(format string, args ...any) { s.printf("skip "+format, args...) }

// owner is a file's user and group by name: root or the service account.
type owner struct{ user, group string }

var (
	rootOwned    = owner{"root", "root"}
	serviceOwned = owner{ServiceUser, ServiceUser}
	rootService  = owner{"root", ServiceUser} // root's, readable by the service
)

func (o owner) String() string { return o.user + ":" + o.group }

// ids are o's numeric ids (the service account's must be known).
func (s *session) ids(o owner) (uid, gid int) {
	uid, gid = 0, 0
	if o.user == ServiceUser {
		uid = s.acc.uid
	}
	if o.group == ServiceUser {
		gid = s.acc.gid
	}
	return uid, gid
}

// matches reports whether fi has mode and owner.
func (s *session) matches(fi fs.FileInfo, mode fs.FileMode, o owner) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	uid, gid := s.ids(o)
	return ok && fi.Mode().Perm() == mode && int(st.Uid) == uid && int(st.Gid) == gid
}

// setAttrs gives path mode and owner.
func (s *session) setAttrs(path string, mode fs.FileMode, o owner) error {
	if err := os.Chmod(path, mode); err != nil {
		return err
	}
	uid, gid := s.ids(o)
	return os.Lchown(path, uid, gid)
}

// ensureDir makes sure the directory p exists with mode and owner (its
// missing parents are created 0755 root:root); contents are not touched.
func (s *session) ensureDir(p string, mode fs.FileMode, o owner) error {
	h := s.host(p)
	fi, err := os.Lstat(h)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s.act(fmt.Sprintf("mkdir %s %04o %s", p, mode, o), func() error {
			if err := mkdirParents(filepath.Dir(h)); err != nil {
				return err
			}
			if err := os.Mkdir(h, mode); err != nil {
				return err
			}
			return s.setAttrs(h, mode, o)
		})
	case err != nil:
		return fmt.Errorf("check %s: %w", p, err)
	case !fi.IsDir():
		return fmt.Errorf("check %s: it exists and is not a directory", p)
	case s.matches(fi, mode, o):
		s.ok("%s %04o %s", p, mode, o)
		return nil
	}
	return s.act(fmt.Sprintf("set %s to %04o %s (was %04o)", p, mode, o, fi.Mode().Perm()),
		func() error { return s.setAttrs(h, mode, o) })
}

// writePolicy says what writeFile does with a file that exists.
type writePolicy int

const (
	keepExisting     writePolicy = iota // never overwrite (the config)
	replaceDifferent                    // rewrite when content, mode or owner differ (the unit)
)

// writeFile writes data to p with mode and owner as policy says, and
// reports whether it wrote (or, in a dry run, would write).
func (s *session) writeFile(p string, data []byte, mode fs.FileMode, o owner, policy writePolicy) (bool, error) {
	h := s.host(p)
	fi, err := os.Lstat(h)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, s.act(fmt.Sprintf("write %s %04o %s", p, mode, o),
			func() error { return s.writeAtomic(h, data, mode, o) })
	case err != nil:
		return false, fmt.Errorf("check %s: %w", p, err)
	case policy == keepExisting:
		s.skip("%s (exists; never overwritten)", p)
		return false, nil
	case !fi.Mode().IsRegular():
		return false, fmt.Errorf("check %s: it exists and is not a regular file", p)
	}
	cur, err := os.ReadFile(h)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", p, err)
	}
	if bytes.Equal(cur, data) && s.matches(fi, mode, o) {
		s.ok("%s %04o %s (unchanged)", p, mode, o)
		return false, nil
	}
	return true, s.act(fmt.Sprintf("update %s %04o %s (it differs)", p, mode, o),
		func() error { return s.writeAtomic(h, data, mode, o) })
}

// writeAtomic writes a temporary file next to path and renames it over
// path, so a reader (or a running binary) never sees a half-written file.
func (s *session) writeAtomic(path string, data []byte, mode fs.FileMode, o owner) error {
	if err := mkdirParents(filepath.Dir(path)); err != nil {
		return err
	}
	return atomicfile.Write(path, data, func(tmp string) error { return s.setAttrs(tmp, mode, o) })
}

// mkdirParents creates dir and its missing parents 0755 root:root
// whatever the umask (MkdirAll's modes are masked by it).
func mkdirParents(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := mkdirParents(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return os.Chmod(dir, 0o755)
}
