package config

import (
	"log/slog"
	"strings"

	"github.com/corrosion/corrosion/internal/redact"
)

// ClusterRedacted is --cluster as shown in messages and logs: the URLs'
// credentials hidden (internal/redact).
func (c *Config) ClusterRedacted() string {
	return redact.List(strings.Join(c.Cluster, ","))
}

// String is the configuration as "--flag=value" pairs, in flag order,
// every secret shown as "***" (set) or "" (unset) and the NATS URLs'
// credentials redacted. It is safe to print and log.
func (c Config) String() string {
	var b strings.Builder
	for i, o := range c.options() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("--" + o.Flag + "=" + o.Get())
	}
	return b.String()
}

// LogValue logs the configuration as a group of its flags, redacted as
// String is.
func (c Config) LogValue() slog.Value {
	opts := c.options()
	attrs := make([]slog.Attr, len(opts))
	for i, o := range opts {
		attrs[i] = slog.String(o.Flag, o.Get())
	}
	return slog.GroupValue(attrs...)
}

var (
	_ slog.LogValuer               = Config{}
	_ interface{ String() string } = Config{}
)
