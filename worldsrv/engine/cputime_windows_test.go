package engine

import (
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// cpuTime is the process's user plus kernel CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var c, e, k, u windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &c, &e, &k, &u); err != nil {
		b.Fatal(err)
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(k) + ticks(u)) * 100)
}
