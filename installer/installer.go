// Package installer installs, removes and reports the agent's operating-system
// service: a systemd unit on Linux, a Windows service on Windows. Only the
// agent imports it; the panel, web, ether and worldsrv may not.
package installer

import (
	"context"
	"errors"
	"io"
)

// Options says where and how to install the agent's service.
type Options struct {
	// Root is "" for the real system; a directory means install under it
	// (tests): every path lives under Root and no service manager is
	// started or reloaded.
	Root string
	// DryRun prints every step and changes nothing.
	DryRun bool
	// Binary is the agent binary the service runs; "" = the running executable.
	Binary string
	// ConfigPath is the agent's config file; "" = DefaultConfigPath().
	ConfigPath string
	// Out gets one line per step ("create user corrosion", "write
	// /etc/corrosion/agent.toml 0640 root:corrosion", "skip ... (exists)");
	// nil = io.Discard.
	Out io.Writer
	// ValidateConfig checks the agent's config as the agent will load it:
	// the file's bytes, with lookup reading the service's environment file.
	// The agent supplies its own loader (corrosion-agent install), so the
	// installer does not import the agent. nil: every config is reported
	// invalid and the service is not started.
	ValidateConfig func(data []byte, lookup func(string) (string, bool)) error
}

// errNoValidator is the problem reported when Options.ValidateConfig is nil.
var errNoValidator = errors.New("installer: no config validator (Options.ValidateConfig) was given")

// validateConfig runs o.ValidateConfig.
func (o Options) validateConfig(data []byte, lookup func(string) (string, bool)) error {
	if o.ValidateConfig == nil {
		return errNoValidator
	}
	return o.ValidateConfig(data, lookup)
}

// Each platform's file (installer_linux.go, installer_windows.go,
// installer_other.go) defines install, uninstall, status and
// defaultConfigPath with the signatures of the exported functions below.

// ErrUnsupported is returned on systems without a supported service manager.
var ErrUnsupported = errors.New("installer: not supported on this system")

// Install installs the agent as a service as o says; it is idempotent.
func Install(ctx context.Context, o Options) error { return install(ctx, o) }

// Uninstall stops and removes the agent's service, keeping its config and data.
func Uninstall(ctx context.Context, o Options) error { return uninstall(ctx, o) }

// Status reports the service's state in a few lines a person reads.
func Status(ctx context.Context, o Options) (string, error) { return status(ctx, o) }

// DefaultConfigPath is where the installed agent reads its config.
func DefaultConfigPath() string { return defaultConfigPath() }
