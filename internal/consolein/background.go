package consolein

import (
	"context"
	"io"
	"log/slog"
)

// Go runs Serve on a goroutine of its own, as a server's console input
// wants: nobody waits for it, so a console nobody types on never holds
// up the shutdown, and a closed stdin (/dev/null, systemd) just ends it.
// A read or write that fails is logged once on log, "console input
// ended".
func Go(ctx context.Context, r io.Reader, w io.Writer, answer Answer, log *slog.Logger) {
	go func() {
		if err := Serve(ctx, r, w, answer); err != nil {
			log.Warn("console input ended", "err", err)
		}
	}()
}
