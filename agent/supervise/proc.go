package supervise

import (
	"errors"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// ident identifies one process across agent restarts: a PID alone can be
// reused by an unrelated process, a PID with its start time cannot.
type ident struct {
	PID       int   `json:"pid"`
	StartTime int64 `json:"start_time_ms"` // process creation time, ms since epoch
}

// errGone means the recorded process no longer exists (or the PID now
// belongs to another process).
var errGone = errors.New("process gone")

// identify reads the creation time of pid.
func identify(pid int) (ident, error) {
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return ident{}, errGone
	}
	ct, err := p.CreateTime()
	if err != nil {
		return ident{}, errGone
	}
	return ident{PID: pid, StartTime: ct}, nil
}

// alive reports whether id still names the same live process. A zombie
// (exited, not yet reaped) counts as gone.
func (id ident) alive() bool {
	if id.PID <= 0 {
		return false
	}
	cur, err := identify(id.PID)
	if err != nil || cur.StartTime != id.StartTime {
		return false
	}
	p, err := process.NewProcess(int32(id.PID))
	if err != nil {
		return false
	}
	if st, err := p.Status(); err == nil {
		for _, s := range st {
			if s == process.Zombie {
				return false
			}
		}
	}
	return true
}

// descendants lists the PIDs below pid (children first found, recursively),
// so a tree kill also reaches processes that left the process group.
func descendants(pid int) []int {
	var out []int
	queue := []int32{int32(pid)}
	for len(queue) > 0 && len(out) < 4096 {
		p, err := process.NewProcess(queue[0])
		queue = queue[1:]
		if err != nil {
			continue
		}
		kids, err := p.Children()
		if err != nil {
			continue
		}
		for _, k := range kids {
			out = append(out, int(k.Pid))
			queue = append(queue, k.Pid)
		}
	}
	return out
}

// waitGone polls until id is no longer alive or timeout passes.
func waitGone(id ident, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !id.alive() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return !id.alive()
}
