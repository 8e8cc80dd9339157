package sidecar

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/corrosion/corrosion/internal/childproc"
	"github.com/corrosion/corrosion/internal/flagval"
)

// Defaults.
const (
	DefaultMigrateTimeout = 2 * time.Minute
	DefaultStopTimeout    = 15 * time.Second
	DefaultWaitTimeout    = time.Minute // Wait's budget when ctx has no deadline
	basePort              = 5000        // ether's port is basePort + node id (DESIGN.md section 6)
)

// Config is what the world tells its sidecar.
type Config struct {
	// Binary is the ether executable; "": `ether` next to the running
	// executable, else `ether` on PATH.
	Binary string
	NodeID uint8      // 1–255: RS_NODE_ID
	Port   int        // the world link, 127.0.0.1: RS_ETHER_PORT; 0: 5000 + NodeID
	DB     flagval.DB // RS_DB_*; empty fields (and port 0) are left to ether's defaults
	// Cluster is the NATS URLs (RS_CLUSTER_HOSTS); empty: ether's default.
	Cluster []string
	// ClusterName is RS_CLUSTER_NAME; "": ether's default.
	ClusterName string
	// LinkToken is RS_LINK_TOKEN; "": none (the seed's behaviour).
	LinkToken string
	// Env adds variables to ether's environment (RS_LOG_LEVEL, …); the
	// settings above win over it.
	Env map[string]string
	// Dir is the supervisor's state directory (ether's output files, at
	// most 4 MiB each); "": a temporary directory that Stop removes (a
	// world killed outright leaves it behind).
	Dir    string
	Logger *slog.Logger // nil: discard
	// MigrateTimeout bounds `ether migrate` (0: DefaultMigrateTimeout).
	MigrateTimeout time.Duration
	// StopTimeout is the graceful stop budget before the process tree is
	// killed (0: DefaultStopTimeout).
	StopTimeout time.Duration
}

// Validate names the first bad field.
func (c Config) Validate() error {
	switch {
	case c.NodeID == 0:
		return errors.New("sidecar: NodeID must be 1–255")
	case c.Port < 0 || c.Port > 65535:
		return fmt.Errorf("sidecar: Port %d out of range", c.Port)
	case c.DB.Port < 0 || c.DB.Port > 65535:
		return fmt.Errorf("sidecar: DB.Port %d out of range", c.DB.Port)
	case c.MigrateTimeout < 0:
		return errors.New("sidecar: MigrateTimeout must not be negative")
	case c.StopTimeout < 0:
		return errors.New("sidecar: StopTimeout must not be negative")
	}
	for _, u := range c.Cluster {
		if strings.TrimSpace(u) == "" || strings.Contains(u, ",") {
			return fmt.Errorf("sidecar: Cluster URL %q is empty or holds a comma", u)
		}
	}
	return nil
}

// port is ether's world link port.
func (c Config) port() int {
	if c.Port != 0 {
		return c.Port
	}
	return basePort + int(c.NodeID)
}

// environment is ether's RS_* settings over c.Env.
func (c Config) environment() map[string]string {
	env := make(map[string]string, len(c.Env)+10)
	for k, v := range c.Env {
		env[k] = v
	}
	env["RS_NODE_ID"] = strconv.Itoa(int(c.NodeID))
	env["RS_ETHER_PORT"] = strconv.Itoa(c.port())
	set := func(k, v string) {
		if v != "" {
			env[k] = v
		}
	}
	for _, kv := range c.DB.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	set("RS_CLUSTER_HOSTS", strings.Join(c.Cluster, ","))
	set("RS_CLUSTER_NAME", c.ClusterName)
	set("RS_LINK_TOKEN", c.LinkToken)
	return env
}

// findBinary resolves Config.Binary: as given, else `ether` next to the
// running executable, else on PATH (childproc.FindBinary).
func findBinary(given string) (string, error) {
	if given != "" {
		if fi, err := os.Stat(given); err != nil || fi.IsDir() {
			return "", fmt.Errorf("sidecar: ether binary %s: not a file", given)
		}
		return given, nil
	}
	p, err := childproc.FindBinary("ether")
	if err != nil {
		return "", fmt.Errorf("sidecar: %w", err)
	}
	return p, nil
}
