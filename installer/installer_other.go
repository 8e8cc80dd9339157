//go:build !linux && !windows

package installer

import "context"

func install(context.Context, Options) error { return ErrUnsupported }

func uninstall(context.Context, Options) error { return ErrUnsupported }

func status(context.Context, Options) (string, error) { return "", ErrUnsupported }

func defaultConfigPath() string { return "/etc/corrosion/agent.toml" }
