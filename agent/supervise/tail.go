package supervise

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"
)

// Tail polling: fast while output flows, backing off to idle when quiet.
const (
	tailBusyPoll = 10 * time.Millisecond
	tailIdlePoll = 200 * time.Millisecond
	tailChunk    = 256 << 10
)

// tailer follows one of the child's log files (stdout.log or stderr.log)
// from a byte offset and hands complete lines to its console. The child
// writes with O_APPEND; when the file passes MaxLogBytes the tailer reads it
// to the end and truncates it, and the child's next write lands at 0.
type tailer struct {
	path    string               // immutable
	stream  string               // immutable
	con     *console             // immutable
	onLines func(lines [][]byte) // immutable; may be nil (readiness check)
	offset  atomic.Int64         // bytes consumed; persisted for adoption
	stop    chan struct{}        // closed to stop after a final drain
	done    chan struct{}        // closed when run returns
	carry   []byte               // owned by run: an unterminated line
	lines   [][]byte             // owned by run: reused line views
	maxSize int64                // immutable
	clock   func() time.Time     // immutable
	log     *slog.Logger         // immutable
	lastErr string               // owned by run: the last read error logged
	needAll func() bool          // immutable once running; may be nil: true while every line must be read
	discard bool                 // owned by run: drop bytes up to the next newline (after a skip)
}

func newTailer(path, stream string, offset int64, con *console, log *slog.Logger, onLines func([][]byte)) *tailer {
	t := &tailer{path: path, stream: stream, con: con, onLines: onLines, log: log,
		stop: make(chan struct{}), done: make(chan struct{}),
		maxSize: con.lim.MaxLogBytes, clock: time.Now}
	t.offset.Store(offset)
	return t
}

// run follows the file until stop is closed, then drains what is left.
func (t *tailer) run() {
	defer close(t.done)
	buf := make([]byte, tailChunk)
	wait := tailBusyPoll
	for {
		n := t.readAvailable(buf)
		select {
		case <-t.stop:
			for t.readAvailable(buf) > 0 {
			}
			t.flushCarry()
			return
		default:
		}
		if n > 0 {
			wait = tailBusyPoll
			continue
		}
		select {
		case <-t.stop:
		case <-time.After(wait):
		}
		if wait < tailIdlePoll {
			wait *= 2
		}
	}
}

// readAvailable reads from the offset to the current end of the file and
// delivers the complete lines; it returns the number of bytes read.
func (t *tailer) readAvailable(buf []byte) int {
	f, err := os.OpenFile(t.path, os.O_RDWR, 0)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			t.readFailed(err)
		}
		return 0
	}
	defer f.Close()
	off := t.offset.Load()
	if fi, err := f.Stat(); err == nil && fi.Size() < off {
		off = 0 // truncated behind our back
	}
	total := 0
	for {
		if t.shouldSkip() {
			total += t.skip(f, &off)
			break
		}
		n, err := f.ReadAt(buf, off)
		if n > 0 {
			off += int64(n)
			total += n
			t.consume(buf[:n])
		}
		if err != nil || n < len(buf) {
			if err != nil && !errors.Is(err, io.EOF) {
				t.readFailed(err)
			}
			break
		}
	}
	if off > t.maxSize {
		// Read to the end just now; truncating loses only what the child
		// wrote in the last instant.
		if n, _ := f.ReadAt(buf, off); n > 0 {
			off += int64(n)
			t.consume(buf[:n])
		}
		if f.Truncate(0) == nil {
			off = 0
		}
	}
	t.offset.Store(off)
	return total
}

// shouldSkip reports whether what is left in the file would only be
// dropped: the throttle window has no room, and no ready_pattern is
// waiting for a line.
func (t *tailer) shouldSkip() bool {
	if t.needAll != nil && t.needAll() {
		return false
	}
	return !t.con.hasRoom(t.clock())
}

// skip jumps from *off to the end of the file without reading: during a
// flood the throttle would drop those lines anyway, and not reading them
// leaves the CPU to the game. The next read resumes at a line boundary.
// It returns the bytes skipped.
func (t *tailer) skip(f *os.File, off *int64) int {
	fi, err := f.Stat()
	if err != nil || fi.Size() <= *off {
		return 0
	}
	end := fi.Size()
	var last [1]byte
	if _, err := f.ReadAt(last[:], end-1); err == nil {
		t.discard = last[0] != '\n' // landed inside a line: drop its rest
	}
	n := int(end - *off)
	t.carry = t.carry[:0]
	t.con.skipped(int64(n))
	*off = end
	return n
}

// readFailed logs a read error once, not on every poll.
func (t *tailer) readFailed(err error) {
	if msg := err.Error(); msg != t.lastErr {
		t.lastErr = msg
		t.log.Warn("read console log", "path", t.path, "err", err)
	}
}

func (t *tailer) consume(p []byte) {
	if t.discard {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.con.skipped(int64(len(p)))
			return
		}
		t.con.skipped(int64(i + 1))
		p, t.discard = p[i+1:], false
	}
	data := p
	if len(t.carry) > 0 {
		data = append(t.carry, p...)
	}
	lines, rest := splitLines(t.lines[:0], data)
	t.lines = lines[:0]
	if len(lines) > 0 {
		if t.onLines != nil {
			t.onLines(lines)
		}
		deliver(t.con, t.stream, lines, t.clock())
	}
	t.carry = append(t.carry[:0], rest...) // rest may alias carry: copy last
}

// flushCarry delivers a final unterminated line.
func (t *tailer) flushCarry() {
	if len(t.carry) == 0 {
		return
	}
	lines := [][]byte{t.carry}
	if t.onLines != nil {
		t.onLines(lines)
	}
	deliver(t.con, t.stream, lines, t.clock())
	t.carry = t.carry[:0]
}

// Stop stops the tailer after a final drain and waits for it.
func (t *tailer) Stop() {
	select {
	case <-t.stop:
	default:
		close(t.stop)
	}
	<-t.done
}
