package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/corrosion/corrosion/agent/wire"
)

// Stable error codes of the file manager, in addition to wire.CodeUnknownFunc,
// wire.CodeBadArgs and wire.CodeInternal. They are part of the wire contract.
const (
	CodeRootMissing   = "root_missing"      // the instance root does not exist (yet)
	CodeNotFound      = "not_found"         // the path (or its parent) does not exist
	CodeNotADirectory = "not_a_directory"   // a directory was needed
	CodeIsADirectory  = "is_a_directory"    // a file was needed, the path is a directory
	CodeNotAFile      = "not_a_file"        // a device, FIFO or socket
	CodeIsASymlink    = "is_a_symlink"      // fm_chmod never follows symlinks
	CodeExists        = "exists"            // the target already exists
	CodeOutsideRoot   = "outside_root"      // "..", an escaping symlink or archive entry
	CodeDenied        = "denied"            // matched by the instance's denylist
	CodeTooLarge      = "too_large"         // over a size or count limit
	CodeInvalidPath   = "invalid_path"      // NUL, backslash, overlong, symlink loop, ...
	CodeInvalidArch   = "invalid_archive"   // corrupt archive, link or device entries
	CodePermission    = "permission_denied" // the operating system refused access
	CodeHardLink      = "hard_link"         // a regular file with more than one hard link
)

// ErrBadDenyPattern is returned by New for a deny pattern that does not compile.
var ErrBadDenyPattern = errors.New("bad deny pattern")

// errNotDir is the cause of not_a_directory errors raised here.
var errNotDir error = syscall.ENOTDIR

// errPathEscapesText is the text of the unexported error os.Root returns when
// a path or symlink leads outside the root; TestIsEscape pins it.
const errPathEscapesText = "path escapes from parent"

// isEscape reports whether err is os.Root refusing to leave the root.
func isEscape(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == errPathEscapesText {
			return true
		}
	}
	return false
}

func badArgs(format string, a ...any) *wire.Error {
	return wire.Errorf(wire.CodeBadArgs, format, a...)
}

func missingArg(name string) *wire.Error {
	return badArgs("missing %q", name)
}

func errOutside(rel string) *wire.Error {
	return wire.Errorf(CodeOutsideRoot, "path %q leads outside the instance root", rel)
}

func errDenied(rel string) *wire.Error {
	return wire.Errorf(CodeDenied, "path %q is denied by the instance's file policy", rel)
}

// mapErr turns an error from the file system into a coded wire error that
// keeps err as its cause (errors.Is(err, syscall.ENOSPC) holds through it;
// see IsDiskFull). op names the step, rel is the request-relative path;
// host paths never reach the message.
func mapErr(op, rel string, err error) error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	we = codeOf(op, rel, err)
	we.Err = err
	return we
}

// codeOf is mapErr's coded error without its cause.
func codeOf(op, rel string, err error) *wire.Error {
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		cause = le.Err
	}
	msg := fmt.Sprintf("%s %q: %v", op, rel, cause)
	switch {
	case isEscape(err):
		return errOutside(rel)
	case errors.Is(err, errTooLarge):
		return wire.Errorf(CodeTooLarge, "%s %q: %v", op, rel, errTooLarge)
	case errors.Is(err, fs.ErrNotExist):
		return wire.Errorf(CodeNotFound, "%s %q: no such file or directory", op, rel)
	case errors.Is(err, fs.ErrExist), errors.Is(err, syscall.ENOTEMPTY):
		return wire.Errorf(CodeExists, "%s %q: already exists", op, rel)
	case errors.Is(err, syscall.ENOTDIR):
		return wire.Errorf(CodeNotADirectory, "%s %q: not a directory", op, rel)
	case errors.Is(err, syscall.EISDIR):
		return wire.Errorf(CodeIsADirectory, "%s %q: is a directory", op, rel)
	case errors.Is(err, syscall.ELOOP):
		return wire.Errorf(CodeInvalidPath, "%s %q: too many levels of symbolic links", op, rel)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return wire.Errorf(CodeInvalidPath, "%s %q: name too long", op, rel)
	case errors.Is(err, fs.ErrPermission):
		return wire.Errorf(CodePermission, "%s", msg)
	case strings.Contains(msg, "too many levels of symbolic links"):
		return wire.Errorf(CodeInvalidPath, "%s", msg)
	}
	return wire.Errorf(wire.CodeInternal, "%s", msg)
}

// finalErr makes sure whatever a handler returns carries a code.
func finalErr(fn string, err error) error {
	var we *wire.Error
	switch {
	case errors.As(err, &we):
		return we
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return wire.Errorf(wire.CodeInternal, "%s: %v", fn, err)
	}
	return mapErr(fn, ".", err)
}
