package steam

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/corrosion/corrosion/internal/redact"
)

// mask hides each secret in s.
func mask(s string, secrets []string) string {
	for _, x := range secrets {
		if x != "" {
			s = strings.ReplaceAll(s, x, redact.Mark)
		}
	}
	return s
}

// lineSink takes steamcmd's output lines: it masks the secrets, keeps
// the output for the parsers (the first MaxVDFBytes), classifies each
// line and hands it on in pieces of at most maxLineBytes. Fed by one
// goroutine; read after it is done.
type lineSink struct {
	secrets []string
	guard   int // the longest secret: how much of a cut line's end may hold part of one
	onLine  func(string)
	scan    scan
	out     bytes.Buffer
}

func newLineSink(secrets []string, onLine func(string)) *lineSink {
	k := &lineSink{secrets: secrets, onLine: onLine}
	for _, x := range secrets {
		k.guard = max(k.guard, len(x))
	}
	return k
}

// line takes one line; cut says its end was dropped, which may have cut
// a secret in two: the part that could hold its start is dropped too.
func (k *lineSink) line(line string, cut bool) {
	line = mask(line, k.secrets)
	if cut {
		line = runePrefix(line, len(line)-k.guard) + " [line cut]"
	}
	k.scan.line(line)
	if k.out.Len()+len(line)+1 <= MaxVDFBytes {
		k.out.WriteString(line)
		k.out.WriteByte('\n')
	}
	for k.onLine != nil && line != "" {
		piece := runePrefix(line, maxLineBytes)
		if piece == "" { // no rune start in reach (not UTF-8): the rest whole
			piece = line
		}
		k.onLine(piece)
		line = line[len(piece):]
	}
}

// drain waits for the output reader to reach the end of the pipe; a
// helper steamcmd left behind holding the pipe open does not hold it
// longer than drainWait: the pipe is closed under it.
func drain(read *sync.WaitGroup, pr *os.File) {
	done := make(chan struct{})
	go func() { read.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainWait):
		pr.Close()
		<-done
	}
}

// drainWait is how long output may trail steamcmd's exit.
const drainWait = 5 * time.Second

// eachLine hands every line of r to f: a line ends at \n or \r (a
// progress line steamcmd rewrites) and is at most maxKeptLine bytes, the
// rest of a longer one dropped (cut true). Empty lines are dropped. It
// returns at EOF or a read error, after handing on an unterminated last
// line.
func eachLine(r io.Reader, f func(line string, cut bool)) {
	buf := make([]byte, 32<<10)
	var line []byte
	cut := false
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		for len(chunk) > 0 {
			i := bytes.IndexAny(chunk, "\r\n")
			part := chunk
			if i >= 0 {
				part = chunk[:i]
			}
			if room := maxKeptLine - len(line); len(part) > room {
				part, cut = part[:room], true
			}
			line = append(line, part...)
			if i < 0 {
				break
			}
			if len(line) > 0 {
				f(string(line), cut)
			}
			line, cut = line[:0], false
			chunk = chunk[i+1:]
		}
		if err != nil {
			if len(line) > 0 {
				f(string(line), cut)
			}
			return
		}
	}
}

// runePrefix is s cut to at most n bytes, on a rune boundary.
func runePrefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
