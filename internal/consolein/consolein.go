// Package consolein reads a server's console input: admin commands typed
// on its stdin (or written there by the corrosion agent, which is how the
// panel's console "Send" reaches a game), one a line, each answered on
// its output. worldsrv and ether use it, each with its own command table.
package consolein

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxLine caps one command line; a longer one is answered with an error
// and not run.
const MaxLine = 4096

// Answer runs one command line (not blank, without its line break) and
// returns the text to print.
type Answer func(ctx context.Context, line string) string

// Serve reads lines from r and writes each answer to w, followed by a line
// break, until r ends (closed, /dev/null: nothing to read is no error),
// fails, or ctx is done. Blank lines are skipped. A read that blocks is
// not interrupted by ctx: run Serve on its own goroutine and do not wait
// for it when shutting down, so a console nobody types on never holds
// the process up.
func Serve(ctx context.Context, r io.Reader, w io.Writer, answer Answer) error {
	br := bufio.NewReaderSize(r, MaxLine)
	for ctx.Err() == nil {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		var out string
		switch {
		case errors.Is(err, errTooLong):
			out = fmt.Sprintf("the line is over %d bytes; nothing was run", MaxLine)
		case err != nil:
			return fmt.Errorf("read the console input: %w", err)
		case strings.TrimSpace(line) == "":
			continue
		default:
			out = answer(ctx, strings.TrimSpace(line))
		}
		if _, err := io.WriteString(w, strings.TrimRight(out, "\n")+"\n"); err != nil {
			return fmt.Errorf("write a console answer: %w", err)
		}
	}
	return nil
}

var errTooLong = errors.New("line too long")

// readLine returns the next line without its "\n" or "\r\n". A line over
// MaxLine is read to its end and dropped (errTooLong). The last line may
// lack its line break.
func readLine(br *bufio.Reader) (string, error) {
	b, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		return "", errTooLong
	}
	if err != nil && !(errors.Is(err, io.EOF) && len(b) > 0) {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
}
