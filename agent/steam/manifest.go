package steam

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// appIDPattern is what an app id looks like (Rust is 258550); an id is
// checked before it becomes part of a file name or a steamcmd argument.
var appIDPattern = regexp.MustCompile(`^[1-9][0-9]{0,9}$`)

// CheckAppID refuses an app id that is not a positive decimal number.
func CheckAppID(app string) error {
	if !appIDPattern.MatchString(app) {
		return fmt.Errorf("app id %q is not a positive decimal number", app)
	}
	return nil
}

// StateFlags bits of an appmanifest (Valve's EAppState).
const (
	StateFullyInstalled = 4
	StateFilesMissing   = 32
	StateFilesCorrupt   = 128
	StateUpdateRunning  = 256
	StateUpdatePaused   = 512
	StateUpdateRequired = 1024
	StateUpdateStarted  = 2048
)

// stateUnfinished are the StateFlags bits that mean the files on disk are
// not one complete build.
const stateUnfinished = StateFilesMissing | StateFilesCorrupt | StateUpdateRunning |
	StateUpdatePaused | StateUpdateRequired | StateUpdateStarted

// Manifest is what steamapps/appmanifest_<app>.acf says of an installed
// app (its AppState object).
type Manifest struct {
	AppID           string
	Name            string
	InstallDir      string // under steamapps/common/
	BuildID         string // the installed build ("" when none yet)
	TargetBuildID   string // the build an unfinished update is heading for
	StateFlags      uint64
	BytesToDownload uint64
	BytesDownloaded uint64
	BytesToStage    uint64
	BytesStaged     uint64
	Beta            string // the branch chosen (UserConfig.BetaKey), "" for public
}

// HalfFinished reports whether the manifest shows a download or update
// that did not complete: StateFlags without "fully installed" or with an
// update bit, or Bytes* counters that disagree.
func (m Manifest) HalfFinished() bool {
	return m.StateFlags&StateFullyInstalled == 0 || m.StateFlags&stateUnfinished != 0 ||
		m.BytesDownloaded != m.BytesToDownload || m.BytesStaged != m.BytesToStage
}

// ManifestPath is where steamcmd keeps app's manifest under an install
// root (force_install_dir).
func ManifestPath(root, app string) string {
	return filepath.Join(root, "steamapps", "appmanifest_"+app+".acf")
}

// ParseManifest reads an appmanifest's text. It needs AppState with the
// appid and a numeric StateFlags; the numeric fields must be numbers when
// present.
func ParseManifest(data []byte) (Manifest, error) {
	root, err := ParseVDF(data)
	if err != nil {
		return Manifest{}, err
	}
	st := root.Get("AppState")
	if st == nil || !st.Obj {
		return Manifest{}, fmt.Errorf("%w: no AppState object", ErrVDF)
	}
	m := Manifest{
		AppID:         st.String("appid"),
		Name:          st.String("name"),
		InstallDir:    st.String("installdir"),
		BuildID:       st.String("buildid"),
		TargetBuildID: st.String("TargetBuildID"),
		Beta:          st.String("UserConfig", "BetaKey"),
	}
	if m.AppID == "" {
		return Manifest{}, fmt.Errorf("%w: AppState has no appid", ErrVDF)
	}
	if st.Get("StateFlags") == nil {
		return Manifest{}, fmt.Errorf("%w: AppState has no StateFlags", ErrVDF)
	}
	for _, f := range []struct {
		key string
		dst *uint64
	}{
		{"StateFlags", &m.StateFlags},
		{"BytesToDownload", &m.BytesToDownload},
		{"BytesDownloaded", &m.BytesDownloaded},
		{"BytesToStage", &m.BytesToStage},
		{"BytesStaged", &m.BytesStaged},
	} {
		n := st.Get(f.key)
		if n == nil {
			continue
		}
		v, err := strconv.ParseUint(n.Value, 10, 64)
		if n.Obj || err != nil {
			return Manifest{}, fmt.Errorf("%w: AppState.%s is %q, not a number", ErrVDF, f.key, n.Value)
		}
		*f.dst = v
	}
	for _, f := range []struct{ key, v string }{{"buildid", m.BuildID}, {"TargetBuildID", m.TargetBuildID}} {
		if _, err := strconv.ParseUint(f.v, 10, 64); f.v != "" && err != nil {
			return Manifest{}, fmt.Errorf("%w: AppState.%s is %q, not a number", ErrVDF, f.key, f.v)
		}
	}
	return m, nil
}

// ErrNotInstalled is wrapped when an app has no manifest under a root.
var ErrNotInstalled = errors.New("not installed")

// Installed reads app's manifest under root: the installed build is
// m.BuildID, a half-finished download m.HalfFinished(). No manifest is an
// error wrapping ErrNotInstalled; a manifest for another app is an error.
func Installed(root, app string) (Manifest, error) {
	if err := CheckAppID(app); err != nil {
		return Manifest{}, err
	}
	p := ManifestPath(root, app)
	name := "steamapps/appmanifest_" + app + ".acf" // messages name no host path
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return Manifest{}, fmt.Errorf("app %s: %w (no %s in its install directory)", app, ErrNotInstalled, name)
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("read %s: %w", name, errnoOnly(err))
	}
	defer f.Close()
	data, err := readLimited(f, MaxVDFBytes)
	if err != nil {
		return Manifest{}, fmt.Errorf("read %s: %w", name, errnoOnly(err))
	}
	m, err := ParseManifest(data)
	if err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", name, err)
	}
	if m.AppID != app {
		return Manifest{}, fmt.Errorf("%s: %w: it is for app %q", name, ErrVDF, m.AppID)
	}
	return m, nil
}

// errnoOnly is err without the path an *fs.PathError names: messages
// name no path on the host.
func errnoOnly(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
