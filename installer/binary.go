package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// sourceBinary is the agent binary an install copies, on every system:
// Options.Binary or this executable, absolute, symbolic links resolved.
func sourceBinary(o Options) (string, error) {
	src := o.Binary
	if src == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("find this executable: %w", err)
		}
		src = exe
	}
	if resolved, err := filepath.EvalSymlinks(src); err == nil {
		src = resolved
	}
	return filepath.Abs(src)
}

// agentBinary reads the agent binary at src for installing at dst (a host
// path; name is how messages show it) and reports whether dst holds the
// same bytes already. A dst that exists but cannot be read is an error,
// never replaced blindly.
func agentBinary(src, dst, name string) (data []byte, same bool, err error) {
	data, err = os.ReadFile(src)
	if err != nil {
		return nil, false, fmt.Errorf("read the agent binary: %w", err)
	}
	cur, err := os.ReadFile(dst)
	switch {
	case err == nil:
		return data, bytes.Equal(cur, data), nil
	case errors.Is(err, fs.ErrNotExist):
		return data, false, nil
	}
	return nil, false, fmt.Errorf("read %s: %w", name, err)
}

// copyAgentBinary is the install step of the agent binary on every system:
// src is copied to dst (a host path; name is how lines show it, as how
// the action line shows the result) by write, unless dst holds the same
// bytes already. It reports whether the binary changed (or would).
func (s steps) copyAgentBinary(src, dst, name, as string, write func(data []byte) error) (bool, error) {
	data, same, err := agentBinary(src, dst, name)
	if err != nil {
		return false, err
	}
	if same {
		s.printf("ok   %s (the same binary)", name)
		return false, nil
	}
	return true, s.act(fmt.Sprintf("install %s as %s", src, as), func() error { return write(data) })
}
