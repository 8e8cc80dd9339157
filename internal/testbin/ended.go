package testbin

import (
	"fmt"
	"os"
	"strings"
)

// Ended reports whether the process pid has ended. On Linux a zombie (a
// process that exited but that no one reaped: in a container whose init
// does not reap, an orphan stays one) counts as ended.
func Ended(pid int) bool {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		s := string(b)
		i := strings.LastIndexByte(s, ')') // the command name may hold anything
		return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
	}
	return !processRunning(pid)
}
