package supervise

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recChunks records what a logReader hands its handler; drop decides
// wouldDrop (nil: never).
type recChunks struct {
	data  []byte
	reads int
	skips []int64
	ends  []skipEnd
	drop  func() bool
}

func (r *recChunks) chunk(p []byte) { r.data = append(r.data, p...); r.reads++ }

func (r *recChunks) wouldDrop() bool { return r.drop != nil && r.drop() }

func (r *recChunks) skipped(n int64, end skipEnd) {
	r.skips = append(r.skips, n)
	r.ends = append(r.ends, end)
}

// logFile writes content to a fresh log file and returns its path.
func logFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stdout.log")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestLogReader_Reads(t *testing.T) {
	cases := []struct {
		name    string
		content string
		offset  int64
		bufSize int
		want    string
		reads   int
	}{
		{name: "from the start", content: "hello\nworld\n", bufSize: 64, want: "hello\nworld\n", reads: 1},
		{name: "from an offset", content: "hello\nworld\n", offset: 6, bufSize: 64, want: "world\n", reads: 1},
		{name: "in chunks of the buffer size", content: "0123456789", bufSize: 4, want: "0123456789", reads: 3},
		{name: "a buffer-sized file needs one more read to see the end", content: "abcd", bufSize: 4, want: "abcd", reads: 1},
		{name: "truncated behind its back: from 0", content: "short\n", offset: 100, bufSize: 64, want: "short\n", reads: 1},
		{name: "nothing new", content: "old\n", offset: 4, bufSize: 64, want: "", reads: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := logFile(t, tc.content)
			r := newLogReader(path, tc.offset, 1<<20, testLogger(t))
			var h recChunks
			n := r.readAvailable(make([]byte, tc.bufSize), &h)
			if string(h.data) != tc.want || n != len(tc.want) || h.reads != tc.reads {
				t.Fatalf("read %q (%d bytes, %d reads); want %q (%d reads)", h.data, n, h.reads, tc.want, tc.reads)
			}
			if got := r.Offset(); got != int64(len(tc.content)) {
				t.Fatalf("offset %d, want the end (%d)", got, len(tc.content))
			}
		})
	}
}

func TestLogReader_MissingFileIsNothingYet(t *testing.T) {
	var logs bytes.Buffer
	r := newLogReader(filepath.Join(t.TempDir(), "stdout.log"), 0, 1<<20, slog.New(slog.NewTextHandler(&logs, nil)))
	var h recChunks
	if n := r.readAvailable(make([]byte, 64), &h); n != 0 || h.reads != 0 || logs.Len() != 0 {
		t.Fatalf("read %d bytes, logged %q", n, logs.String())
	}
}

func TestLogReader_LogsAReadErrorOnce(t *testing.T) {
	var logs bytes.Buffer
	dir := t.TempDir() // a directory cannot be opened for reading and writing
	r := newLogReader(dir, 0, 1<<20, slog.New(slog.NewTextHandler(&logs, nil)))
	for range 3 {
		r.readAvailable(make([]byte, 64), &recChunks{})
	}
	if n := strings.Count(logs.String(), "read console log"); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, logs.String())
	}
}

func TestLogReader_TruncatesPastMaxSize(t *testing.T) {
	path := logFile(t, strings.Repeat("x", 40))
	r := newLogReader(path, 0, 16, testLogger(t))
	var h recChunks
	r.readAvailable(make([]byte, 8), &h)
	if len(h.data) != 40 || r.Offset() != 0 || fileSize(t, path) != 0 {
		t.Fatalf("read %d bytes, offset %d, file %d bytes; want 40, 0, 0", len(h.data), r.Offset(), fileSize(t, path))
	}
	// The child's next write (O_APPEND) lands at 0, where the reader is.
	appendFile(t, path, "after\n")
	h = recChunks{}
	r.readAvailable(make([]byte, 8), &h)
	if string(h.data) != "after\n" {
		t.Fatalf("after truncation read %q", h.data)
	}
}

func TestLogReader_SkipsWhatTheHandlerWouldDrop(t *testing.T) {
	cases := []struct {
		name    string
		content string
		end     skipEnd
	}{
		{name: "ending inside a line", content: "line\nhalf a li", end: skipEndMidLine},
		{name: "ending at a line boundary", content: "line\nline\n", end: skipEndLineBoundary},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := logFile(t, tc.content)
			r := newLogReader(path, 0, 1<<20, testLogger(t))
			h := recChunks{drop: func() bool { return true }}
			n := r.readAvailable(make([]byte, 64), &h)
			if h.reads != 0 || n != len(tc.content) || r.Offset() != int64(len(tc.content)) {
				t.Fatalf("%d reads, consumed %d, offset %d; want a skip to the end", h.reads, n, r.Offset())
			}
			if len(h.skips) != 1 || h.skips[0] != int64(len(tc.content)) || h.ends[0] != tc.end {
				t.Fatalf("skips %v ends %v; want [%d] [%d]", h.skips, h.ends, len(tc.content), tc.end)
			}
		})
	}
}

func TestLogReader_SkipsTheRestOnceTheHandlerWouldDrop(t *testing.T) {
	path := logFile(t, strings.Repeat("ab\n", 10)) // 30 bytes
	r := newLogReader(path, 0, 1<<20, testLogger(t))
	calls := 0
	h := recChunks{drop: func() bool { calls++; return calls > 1 }} // room for one chunk
	n := r.readAvailable(make([]byte, 9), &h)
	if string(h.data) != "ab\nab\nab\n" || len(h.skips) != 1 || h.skips[0] != 21 || n != 30 {
		t.Fatalf("read %q, skips %v, consumed %d; want one chunk read and 21 bytes skipped", h.data, h.skips, n)
	}
	// Nothing new: no skip of zero bytes is reported.
	r.readAvailable(make([]byte, 9), &h)
	if len(h.skips) != 1 {
		t.Fatalf("skips %v after a poll with nothing new", h.skips)
	}
}
