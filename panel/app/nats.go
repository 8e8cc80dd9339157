package app

import (
	"context"
	"log/slog"
	"os"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/internal/natsconn"
)

// connectNATS dials NATS (internal/natsconn) and returns at once even when
// no server is up: the client retries forever with backoff while the panel
// serves (pages read Postgres; live parts resume on reconnect).
func connectNATS(ctx context.Context, cfg Config, log *slog.Logger) (*nats.Conn, error) {
	host, _ := os.Hostname()
	return natsconn.Dial(ctx, natsconn.Options{
		URL:  cfg.NATSURL,
		Name: "corrosion-panel@" + host,
		Auth: natsconn.Auth{User: cfg.NATSUser, Password: cfg.NATSPassword, Token: cfg.NATSToken,
			NKeySeedFile: cfg.NATSNKeySeedFile, Creds: cfg.NATSCreds, CAFile: cfg.NATSCAFile},
		ReconnectBufSize: 8 << 20,
		Log:              log,
		Program:          "the panel",
	})
}
