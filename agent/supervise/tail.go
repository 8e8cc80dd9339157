package supervise

import (
	"log/slog"
	"time"
)

// Tail polling: fast while output flows, backing off to idle when quiet.
const (
	tailBusyPoll = 10 * time.Millisecond
	tailIdlePoll = 200 * time.Millisecond
	tailChunk    = 256 << 10
)

// tailerConfig says what a tailer follows and who else looks at its lines.
type tailerConfig struct {
	path   string // the log file: stdout.log or stderr.log
	stream string // wire.StreamStdout or wire.StreamStderr
	offset int64  // where this run's output starts (or an adopted run resumes)
	// onLines sees every complete line before the console does (the
	// readiness check); nil: nobody.
	onLines func(lines [][]byte)
	// needAll reports true while every line must be read, so no output is
	// skipped even when the throttle would drop it (a ready_pattern is
	// waiting for its line); nil: never.
	needAll func() bool
	clock   func() time.Time // nil: time.Now
}

// tailer follows one of the child's log files and hands complete lines to
// its console: a logReader knows the file (offsets, truncation, skipping
// unread output while the throttle has no room), a lineSplitter knows the
// lines (carry, the 64 KiB cap, discarding the rest of a skipped line).
type tailer struct {
	stream  string               // immutable after newTailer
	con     *console             // immutable after newTailer
	onLines func(lines [][]byte) // immutable after newTailer; may be nil
	needAll func() bool          // immutable after newTailer; may be nil
	clock   func() time.Time     // immutable after newTailer
	src     *logReader           // immutable after newTailer; its state is owned by run
	lines   lineSplitter         // owned by run (by the caller of readAvailable in tests)
	stop    chan struct{}        // closed (once, by Stop) to stop after a final drain
	done    chan struct{}        // closed when run returns
}

var _ chunkHandler = (*tailer)(nil)

func newTailer(cfg tailerConfig, con *console, log *slog.Logger) *tailer {
	t := &tailer{stream: cfg.stream, con: con, onLines: cfg.onLines, needAll: cfg.needAll,
		clock: cfg.clock, src: newLogReader(cfg.path, cfg.offset, con.lim.MaxLogBytes, log),
		stop: make(chan struct{}), done: make(chan struct{})}
	if t.clock == nil {
		t.clock = time.Now
	}
	return t
}

// Offset is how far the log file has been consumed; saved for adoption.
func (t *tailer) Offset() int64 { return t.src.Offset() }

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
			t.flush()
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

// readAvailable reads what the child wrote since the last call and
// delivers its complete lines; it returns the bytes consumed.
func (t *tailer) readAvailable(buf []byte) int { return t.src.readAvailable(buf, t) }

// chunk implements chunkHandler: it splits the bytes read into lines.
func (t *tailer) chunk(p []byte) {
	if n := t.lines.feed(p, t.emit); n > 0 {
		t.con.skipped(int64(n))
	}
}

// wouldDrop implements chunkHandler: what is left in the file would only
// be dropped when the throttle window has no room, unless a ready_pattern
// is waiting for a line.
func (t *tailer) wouldDrop() bool {
	if t.needAll != nil && t.needAll() {
		return false
	}
	return !t.con.hasRoom(t.clock())
}

// skipped implements chunkHandler: the splitter forgets the line it
// carried, and the console counts the bytes.
func (t *tailer) skipped(n int64, end skipEnd) {
	t.lines.skipped(end)
	t.con.skipped(n)
}

// emit hands complete lines to the readiness check and the console.
func (t *tailer) emit(lines [][]byte) {
	if t.onLines != nil {
		t.onLines(lines)
	}
	deliver(t.con, t.stream, lines, t.clock())
}

// flush delivers a final unterminated line.
func (t *tailer) flush() { t.lines.flush(t.emit) }

// Stop stops the tailer after a final drain and waits for it.
func (t *tailer) Stop() {
	select {
	case <-t.stop:
	default:
		close(t.stop)
	}
	<-t.done
}
