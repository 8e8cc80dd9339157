package image

import (
	"archive/tar"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/corrosion/corrosion/internal/unixmode"
)

// writeEntry writes one file or directory of a reproducible tar (a layer's,
// and the archive's in tarDir); a Source file is read whole.
func writeEntry(tw *tar.Writer, f File, created time.Time) error {
	name := strings.TrimPrefix(f.Path, "/")
	hdr := &tar.Header{Name: name, Mode: int64(unixmode.Bits(f.Mode)), Uid: f.UID, Gid: f.GID,
		ModTime: created.UTC().Truncate(time.Second), Format: tar.FormatPAX}
	var data []byte
	switch {
	case f.Mode.IsDir():
		hdr.Typeflag, hdr.Name = tar.TypeDir, name+"/"
	case f.Source != "":
		b, err := os.ReadFile(f.Source)
		if err != nil {
			return fmt.Errorf("tar file %s: %w", f.Path, err)
		}
		hdr.Typeflag, data = tar.TypeReg, b
	default:
		hdr.Typeflag, data = tar.TypeReg, f.Data
	}
	hdr.Size = int64(len(data))
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("tar entry %s: %w", hdr.Name, err)
	}
	if _, err := tw.Write(data); err != nil {
		return fmt.Errorf("tar file %s: %w", f.Path, err)
	}
	return nil
}
