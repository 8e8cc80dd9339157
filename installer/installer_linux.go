package installer

import "context"

// Placeholder until the systemd installer lands; it keeps the package building.

func install(context.Context, Options) error { return ErrUnsupported }

func uninstall(context.Context, Options) error { return ErrUnsupported }

func status(context.Context, Options) (string, error) { return "", ErrUnsupported }

func defaultConfigPath() string { return "/etc/corrosion/agent.toml" }
