package testbin

import (
	"strings"
	"sync"
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
