//go:build !race

package proto

import (
	"io"
	"testing"
)

// WriteFrame allocates nothing once its pool holds a buffer. (Not built
// under the race detector, whose sync.Pool drops items at random.)
func TestWriteFrame_ZeroAllocs(t *testing.T) {
	m := Message(Position{X: 1, Y: 2})
	n := testing.AllocsPerRun(100, func() {
		if err := WriteFrame(io.Discard, m); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("%v allocs per WriteFrame, want 0", n)
	}
}
