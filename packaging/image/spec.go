package image

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"time"
)

// The images' user: a system account with no shell and no login.
const (
	UID      = 10001
	GID      = 10001
	UserName = "corrosion"
	HomeDir  = "/var/lib/corrosion" // the working directory, writable by the user
	BinDir   = "/usr/bin"
)

// DefaultCACerts is the build machine's CA bundle, copied into the images
// for TLS to NATS and Postgres.
const DefaultCACerts = "/etc/ssl/certs/ca-certificates.crt"

// Image names: also the archive names and the tags `docker load` gives.
const (
	PanelName = "corrosion-panel"
	WorldName = "corrosion-world"
)

// Meta is what every image says about its build (OCI labels).
type Meta struct {
	Version  string    // org.opencontainers.image.version, and the tag
	Commit   string    // org.opencontainers.image.revision
	Created  time.Time // org.opencontainers.image.created; also every file's mtime
	Source   string    // org.opencontainers.image.source
	Licenses string    // org.opencontainers.image.licenses (SPDX)
}

// File is one entry of a layer: a regular file (from Source on the build
// machine, or Data) or, when Mode has fs.ModeDir, a directory.
type File struct {
	Path     string      // absolute, e.g. /usr/bin/worldsrv
	Mode     fs.FileMode // permission bits, plus fs.ModeDir for a directory
	UID, GID int
	Source   string // a file to copy; "" = Data
	Data     []byte
}

// Healthcheck is Docker's image health check (the config's Healthcheck):
// Test runs in the container, without a shell.
type Healthcheck struct {
	Test                    []string
	Interval, Timeout, Wait time.Duration // Wait: the start period
	Retries                 int
}

// Spec is one image: its layers (the shared base first, then the
// binaries) and its run configuration.
type Spec struct {
	Name        string // PanelName or WorldName
	Description string
	Layers      [][]File
	Entrypoint  []string
	Cmd         []string
	Env         []string
	Ports       []string // "7780/tcp"
	Health      Healthcheck
}

// User is the config's User: numeric, so it needs no /etc/passwd lookup.
func User() string { return strconv.Itoa(UID) + ":" + strconv.Itoa(GID) }

// baseLayer is what both images share: the user in /etc/passwd and
// /etc/group, the CA bundle, /tmp and the user's home.
func baseLayer(caCerts string) []File {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:Corrosion:%s:/sbin/nologin\n", UserName, UID, GID, HomeDir)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", UserName, GID)
	return []File{
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte(passwd)},
		{Path: "/etc/group", Mode: 0o644, Data: []byte(group)},
		{Path: "/etc/ssl/certs/ca-certificates.crt", Mode: 0o644, Source: caCerts},
		{Path: "/tmp", Mode: fs.ModeDir | fs.ModeSticky | 0o777},
		{Path: HomeDir, Mode: fs.ModeDir | 0o750, UID: UID, GID: GID},
	}
}

// binary is an executable from binDir placed in BinDir.
func binary(binDir, name string) File {
	return File{Path: BinDir + "/" + name, Mode: 0o755, Source: filepath.Join(binDir, name)}
}

// health is the check both images use: their own binary's healthcheck
// command (no shell, no curl in the images).
func health(bin string) Healthcheck {
	return Healthcheck{Test: []string{"CMD", BinDir + "/" + bin, "healthcheck"},
		Interval: 10 * time.Second, Timeout: 6 * time.Second, Wait: 20 * time.Second, Retries: 3}
}

// PanelSpec is corrosion-panel: `serve` on 0.0.0.0:7780, set through
// CORROSION_PANEL_LISTEN so that `healthcheck` reads the same address.
// binDir holds a static corrosion-panel for the image's platform.
func PanelSpec(binDir, caCerts string) Spec {
	return Spec{
		Name:        PanelName,
		Description: "Corrosion panel: the operator web panel and backend (corrosion-panel serve | migrate | user add | license add)",
		Layers:      [][]File{baseLayer(caCerts), {binary(binDir, "corrosion-panel")}},
		Entrypoint:  []string{BinDir + "/corrosion-panel"},
		Cmd:         []string{"serve"},
		Env:         []string{"PATH=" + BinDir, "CORROSION_PANEL_LISTEN=0.0.0.0:7780"},
		Ports:       []string{"7780/tcp"},
		Health:      health("corrosion-panel"),
	}
}

// WorldSpec is corrosion-world: worldsrv with ether next to it (worldsrv
// spawns the ether found beside its own executable). Node 10 by default:
// game port 43594, HTTP 8080; RS_NODE_ID=N runs node N on 43584+N and
// 8070+N (the health check reads the same variable).
func WorldSpec(binDir, caCerts string) Spec {
	return Spec{
		Name:        WorldName,
		Description: "Corrosion world: one game world (worldsrv) and its ether sidecar",
		Layers:      [][]File{baseLayer(caCerts), {binary(binDir, "worldsrv"), binary(binDir, "ether")}},
		Entrypoint:  []string{BinDir + "/worldsrv"},
		Env:         []string{"PATH=" + BinDir},
		Ports:       []string{"43594/tcp", "8080/tcp"},
		Health:      health("worldsrv"),
	}
}

// mainPackages are the main packages of the images' binaries.
func mainPackages() []string {
	return []string{"./ether/cmd/ether", "./panel/cmd/corrosion-panel", "./worldsrv/cmd/worldsrv"}
}
