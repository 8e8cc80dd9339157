// Package atomicfile replaces a file so that a reader, or a crash, never sees
// it half-written: the data goes to a temporary file in the same directory,
// is flushed to disk and renamed over the old file.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data. The temporary file is created 0600 next to
// path, written, fsynced and closed; prepare, when not nil, runs on it before
// the rename (to set its mode or owner, which the rename carries over). On any
// failure the temporary file is removed and path is left as it was.
func Write(path string, data []byte, prepare func(tmp string) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after the rename: a no-op
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if prepare != nil {
		if err := prepare(tmp); err != nil {
			return err
		}
	}
	return os.Rename(tmp, path)
}
