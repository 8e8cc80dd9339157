//go:build unix

package testbin

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
)

// Start collects the process's output while it runs and kills it when the
// test that started it ends.
func TestStart_CollectsOutputAndKillsAtTestEnd(t *testing.T) {
	var exited <-chan struct{}
	t.Run("running", func(t *testing.T) {
		var out *Output
		out, exited = Start(t, "sh", exec.Command("sh", "-c", "echo hello; exec sleep 600"))
		poll.Until(t, 10*time.Second, func() error {
			if !strings.Contains(out.String(), "hello") {
				return errors.New("no output yet")
			}
			return nil
		})
		select {
		case <-exited:
			t.Fatal("exited while its test runs")
		default:
		}
	})
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("still running after its test ended")
	}
}
