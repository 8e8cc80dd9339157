package supervise

import (
	"bytes"

	"github.com/corrosion/corrosion/agent/wire"
)

// lineSplitter cuts a byte stream, fed in chunks of any size, into lines:
// it carries an unterminated line over to the next chunk, cuts lines
// longer than wire.MaxLineBytes into pieces of that size, and after a skip
// that landed inside a line discards the rest of that line. It knows
// nothing of files. Not safe for concurrent use: one goroutine feeds it.
type lineSplitter struct {
	carry   []byte   // owned by the feeding goroutine: an unterminated line
	lines   [][]byte // owned by the feeding goroutine: line views, reused by each feed
	discard bool     // owned by the feeding goroutine: drop bytes up to the next newline
}

// feed splits p, the next bytes of the stream, and hands the complete
// lines it finishes (the carried line first) to emit; the views are valid
// only during that call, and emit is not called without lines. It returns
// how many bytes of p it discarded as the rest of a skipped line.
func (s *lineSplitter) feed(p []byte, emit func(lines [][]byte)) (discarded int) {
	if s.discard {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return len(p)
		}
		p, discarded, s.discard = p[i+1:], i+1, false
	}
	data := p
	if len(s.carry) > 0 {
		data = append(s.carry, p...)
	}
	lines, rest := splitLines(s.lines[:0], data)
	s.lines = lines[:0]
	if len(lines) > 0 {
		emit(lines)
	}
	s.carry = append(s.carry[:0], rest...) // rest may alias carry and lines: copy last
	return discarded
}

// skipped forgets the carried line: the bytes after it were passed over
// unread. When the skip landed inside a line, the bytes up to the next
// newline are discarded; when its end is unknown, a discard already
// pending stays as it is.
func (s *lineSplitter) skipped(end skipEnd) {
	switch end {
	case skipEndMidLine:
		s.discard = true
	case skipEndLineBoundary:
		s.discard = false
	}
	s.carry = s.carry[:0]
}

// flush hands the carried unterminated line, if any, to emit (cut at the
// cap like any line) and forgets it: the stream has ended.
func (s *lineSplitter) flush(emit func(lines [][]byte)) {
	if len(s.carry) == 0 {
		return
	}
	s.lines = appendCapped(s.lines[:0], s.carry)
	emit(s.lines)
	s.lines = s.lines[:0]
	s.carry = s.carry[:0]
}

// splitLines appends to dst the complete lines of buf (views into buf,
// trailing \r removed) and returns them with the unterminated rest. A line
// longer than wire.MaxLineBytes is cut into pieces of that size; so is a
// rest past it, except for a final \r, which may be the first half of a
// CRLF that the next read completes.
func splitLines(dst [][]byte, buf []byte) (lines [][]byte, rest []byte) {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		dst = appendCapped(dst, bytes.TrimSuffix(buf[:i], []byte{'\r'}))
		buf = buf[i+1:]
	}
	for len(bytes.TrimSuffix(buf, []byte{'\r'})) > wire.MaxLineBytes {
		dst = append(dst, buf[:wire.MaxLineBytes])
		buf = buf[wire.MaxLineBytes:]
	}
	return dst, buf
}

func appendCapped(dst [][]byte, l []byte) [][]byte {
	for len(l) > wire.MaxLineBytes {
		dst = append(dst, l[:wire.MaxLineBytes])
		l = l[wire.MaxLineBytes:]
	}
	return append(dst, l)
}
