package childproc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
)

// TestGroup_KillEndsTheWholeGroup: Kill ends the child and the process it
// started, not only the child.
func TestGroup_KillEndsTheWholeGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	g, err := StartGroup(cmd)
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
		if procRunning(grandchild) {
			return fmt.Errorf("grandchild %d still running", grandchild)
		}
		return nil
	})
	if err := g.Kill(); err != nil {
		t.Errorf("a second Kill of an ended group: %v", err)
	}
}

// procRunning reports whether pid is a running process (a zombie is not).
func procRunning(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
