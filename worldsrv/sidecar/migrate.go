package sidecar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/corrosion/corrosion/agent/supervise"
	"github.com/corrosion/corrosion/internal/childproc"
)

// tailBytes is how much of `ether migrate`'s stderr an error quotes.
const tailBytes = 2048

// migrate runs `ether migrate` with ether's environment, within the
// migrate timeout. Its failure quotes the end of ether's stderr.
func (s *Sidecar) migrate(ctx context.Context) error {
	timeout := s.cfg.MigrateTimeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, "migrate")
	cmd.Env = supervise.Environ(s.inst)
	cmd.Dir = s.dir
	stderr := &tailBuffer{max: tailBytes}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := childproc.StartBound(cmd) // a world killed mid-migrate takes the migrate along
	if err == nil {
		err = cmd.Wait()
	}
	switch {
	case err == nil:
		s.log.Info("ether migrate done", "took", time.Since(start).Round(time.Millisecond))
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("sidecar: ether migrate: no result within %v (killed)%s", timeout, quote(stderr.String()))
	}
	return fmt.Errorf("sidecar: ether migrate: %w%s", err, quote(stderr.String()))
}

// quote formats a process's output tail for an error message.
func quote(tail string) string {
	tail = strings.TrimSpace(tail)
	if tail == "" {
		return " (no output)"
	}
	return "; ether said:\n" + tail
}

// tailBuffer keeps the last max bytes written to it, cut to whole lines.
type tailBuffer struct {
	max int // immutable

	mu  sync.Mutex
	buf []byte // guarded by mu
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(b.buf)
	if len(b.buf) == b.max {
		if _, rest, ok := strings.Cut(s, "\n"); ok {
			s = rest // the first line was cut
		}
	}
	return s
}
