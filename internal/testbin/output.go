package testbin

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
)

// Output collects a process's stdout/stderr for a test; it is safe to read
// while the process writes.
type Output struct {
	mu sync.Mutex
	b  strings.Builder // guarded by mu
}

// Write implements io.Writer.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

// String returns everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// Exchange is one console line a test types and what the answer must
// contain.
type Exchange struct{ Line, Want string }

// Converse types each exchange's line on stdin and waits up to timeout
// for its answer to appear in out (a process's console, e.g. its stdout).
func Converse(t testing.TB, stdin io.Writer, out *Output, timeout time.Duration, exchanges ...Exchange) {
	t.Helper()
	for _, x := range exchanges {
		if _, err := io.WriteString(stdin, x.Line+"\n"); err != nil {
			t.Fatalf("type %q: %v", x.Line, err)
		}
		poll.Until(t, timeout, func() error {
			if !strings.Contains(out.String(), x.Want) {
				return fmt.Errorf("%q: no %q in the output yet:\n%s", x.Line, x.Want, out.String())
			}
			return nil
		})
	}
}
