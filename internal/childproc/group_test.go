//go:build unix

package childproc_test

import (
	"bufio"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/childproc"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// TestGroup_KillEndsTheWholeGroup: Kill ends the child and the process it
// started, not only the child.
func TestGroup_KillEndsTheWholeGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	g, err := childproc.StartGroup(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("grandchild pid %q: %v", line, err)
	}
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	poll.Until(t, 5*time.Second, func() error {
		if !testbin.Ended(grandchild) {
			return fmt.Errorf("grandchild %d still running", grandchild)
		}
		return nil
	})
	if err := g.Kill(); err != nil {
		t.Errorf("a second Kill of an ended group: %v", err)
	}
}
