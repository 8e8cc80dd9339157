package installer

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// steps prints an install's steps, a line each, and carries them out
// unless the run is a dry one. Both the systemd and the Windows session
// embed it.
type steps struct {
	out io.Writer // immutable
	dry bool      // immutable: print "would …" and change nothing
}

func (s steps) printf(format string, args ...any) { fmt.Fprintf(s.out, format+"\n", args...) }

// act prints what and does it (not in a dry run).
func (s steps) act(what string, do func() error) error {
	if s.dry {
		s.printf("would %s", what)
		return nil
	}
	s.printf("%s", what)
	if err := do(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// absRoot is Options.Root made absolute, checked to be a directory.
func absRoot(verb, root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("%s: root %q: %w", verb, root, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s: root %q is not a directory", verb, root)
	}
	return abs, nil
}
