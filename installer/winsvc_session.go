package installer

// The session of a Windows install, uninstall or status run, shared by the
// files (winsvc_files.go) and the service manager's part (*_windows.go):
// its options, where it prints, and where a Windows path lives (under
// Options.Root in a test). Platform-independent, as session_linux.go is
// for Linux.

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// winSession is one Windows install, uninstall or status run.
type winSession struct {
	o      Options   // immutable; Root absolute or ""
	layout winLayout // immutable
	steps
	// secure restricts a directory the install creates to Administrators
	// and SYSTEM; immutable; nil when Root is set (no ACLs in a test root).
	secure func(path string) error
}

// newWinSession checks o and fills in its defaults.
func newWinSession(o Options, verb string, l winLayout) (*winSession, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.ConfigPath == "" {
		o.ConfigPath = l.Config
	}
	if !isWindowsAbs(o.ConfigPath) {
		return nil, fmt.Errorf("%s: config path %q is not absolute (want e.g. %s)", verb, o.ConfigPath, l.Config)
	}
	if o.Root != "" {
		abs, err := absRoot(verb, o.Root)
		if err != nil {
			return nil, err
		}
		o.Root = abs
	}
	s := &winSession{steps: steps{out: o.Out, dry: o.DryRun}, o: o, layout: l}
	if o.Root != "" {
		s.printf("root %s: every path below lives under it; the service manager is not touched", o.Root)
	}
	if o.DryRun {
		s.printf("dry run: nothing is changed")
	}
	return s, nil
}

// isWindowsAbs reports whether p is an absolute Windows path (C:\… or
// \\server\share\…), whatever GOOS is.
func isWindowsAbs(p string) bool {
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		c := p[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return strings.HasPrefix(p, `\\`) && len(p) > 2
}

// host is where the Windows path p lives: p itself, or under Root with
// its drive dropped (C:\ProgramData\Corrosion → <Root>/ProgramData/Corrosion).
func (s *winSession) host(p string) string {
	if s.o.Root == "" {
		return p
	}
	if len(p) >= 2 && p[1] == ':' {
		p = p[2:]
	}
	p = strings.TrimLeft(strings.ReplaceAll(p, `\`, "/"), "/")
	return filepath.Join(s.o.Root, filepath.FromSlash(p))
}
