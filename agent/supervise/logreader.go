package supervise

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
)

// chunkHandler receives what a logReader finds in its file. The reader
// calls it from the goroutine that calls readAvailable.
type chunkHandler interface {
	// chunk receives bytes read, in file order; p is valid only during
	// the call.
	chunk(p []byte)
	// wouldDrop reports whether output read now would only be dropped;
	// the reader then skips to the end of the file without reading.
	wouldDrop() bool
	// skipped reports n bytes passed over unread, and where the skip
	// ended.
	skipped(n int64, end skipEnd)
}

// skipEnd says where a skip to the end of the file landed.
type skipEnd int

const (
	// skipEndUnknown: the last byte could not be read.
	skipEndUnknown skipEnd = iota
	// skipEndLineBoundary: the file ended with a newline; the next byte
	// read starts a line.
	skipEndLineBoundary
	// skipEndMidLine: the skip ended inside a line; the next bytes read,
	// up to a newline, finish a line nobody saw begin.
	skipEndMidLine
)

// logReader reads a log file the child appends to (O_APPEND), from a byte
// offset it keeps. It notices truncation behind its back (the file is
// shorter than the offset: start again at 0), truncates the file itself
// once it has read past maxSize (the child's next write lands at 0), and
// skips unread output a handler would only drop. It knows nothing of lines.
type logReader struct {
	path    string       // immutable after newLogReader
	maxSize int64        // immutable after newLogReader; truncate once read past this
	log     *slog.Logger // immutable after newLogReader
	offset  atomic.Int64 // written only by the reading goroutine; loaded by checkpoints
	lastErr string       // owned by the reading goroutine: the last read error logged
}

func newLogReader(path string, offset, maxSize int64, log *slog.Logger) *logReader {
	r := &logReader{path: path, maxSize: maxSize, log: log}
	r.offset.Store(offset)
	return r
}

// Offset is how far the file has been consumed (read or skipped); it is
// saved for adoption. Safe to call from any goroutine.
func (r *logReader) Offset() int64 { return r.offset.Load() }

// readAvailable reads from the offset to the current end of the file,
// handing the bytes to h, or skips them while h would drop them. It
// returns the bytes consumed (read or skipped); a missing file is nothing
// to read yet. buf is the read buffer; the caller reuses it.
func (r *logReader) readAvailable(buf []byte, h chunkHandler) int {
	f, err := os.OpenFile(r.path, os.O_RDWR, 0)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			r.readFailed(err)
		}
		return 0
	}
	defer f.Close()
	off := r.offset.Load()
	if fi, err := f.Stat(); err == nil && fi.Size() < off {
		off = 0 // truncated behind our back
	}
	total := r.readFrom(f, buf, &off, h)
	if off > r.maxSize {
		// Read to the end just now; truncating loses only what the child
		// wrote in the last instant.
		if n, _ := f.ReadAt(buf, off); n > 0 {
			off += int64(n)
			h.chunk(buf[:n])
		}
		if f.Truncate(0) == nil {
			off = 0
		}
	}
	r.offset.Store(off)
	return total
}

// readFrom reads f from *off to its end in chunks of len(buf), or skips
// the rest once h would drop it; it advances *off and returns the bytes
// consumed.
func (r *logReader) readFrom(f *os.File, buf []byte, off *int64, h chunkHandler) int {
	total := 0
	for {
		if h.wouldDrop() {
			return total + r.skip(f, off, h)
		}
		n, err := f.ReadAt(buf, *off)
		if n > 0 {
			*off += int64(n)
			total += n
			h.chunk(buf[:n])
		}
		if err != nil || n < len(buf) {
			if err != nil && !errors.Is(err, io.EOF) {
				r.readFailed(err)
			}
			return total
		}
	}
}

// skip jumps from *off to the end of the file without reading: during a
// flood the throttle would drop those lines anyway, and not reading them
// leaves the CPU to the game. It reads only the last byte, to tell h
// whether the skip ended inside a line. It returns the bytes skipped.
func (r *logReader) skip(f *os.File, off *int64, h chunkHandler) int {
	fi, err := f.Stat()
	if err != nil || fi.Size() <= *off {
		return 0
	}
	end := fi.Size()
	where := skipEndUnknown
	var last [1]byte
	if _, err := f.ReadAt(last[:], end-1); err == nil {
		where = skipEndMidLine
		if last[0] == '\n' {
			where = skipEndLineBoundary
		}
	}
	n := end - *off
	h.skipped(n, where)
	*off = end
	return int(n)
}

// readFailed logs a read error once, not on every poll.
func (r *logReader) readFailed(err error) {
	if msg := err.Error(); msg != r.lastErr {
		r.lastErr = msg
		r.log.Warn("read console log", "path", r.path, "err", err)
	}
}
