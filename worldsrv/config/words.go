package config

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// maxWordFile bounds the word filter file (1 MiB).
const maxWordFile = 1 << 20

// isWordFile tells the two forms of --word-filter apart: a value holding
// a path separator or naming an existing file is a file; anything else is
// a comma list (one word is a list of one).
func isWordFile(v string) bool {
	if v == "" {
		return false
	}
	if strings.ContainsAny(v, `/\`) {
		return true
	}
	if strings.Contains(v, ",") {
		return false
	}
	_, err := os.Stat(v)
	return err == nil
}

// Words is the word filter's list, lower-cased, blanks and duplicates
// dropped: read from the file (one word a line, '#' starts a comment) or
// split from the comma list. No filter: nil.
func (c *Config) Words() ([]string, error) {
	if !isWordFile(c.WordFilter) {
		return uniqueWords(strings.Split(c.WordFilter, ",")), nil
	}
	f, err := os.Open(c.WordFilter)
	if err != nil {
		return nil, fmt.Errorf("read word filter: %w", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	read := 0
	for sc.Scan() {
		if read += len(sc.Bytes()) + 1; read > maxWordFile {
			return nil, fmt.Errorf("read word filter %s: larger than %d bytes", c.WordFilter, maxWordFile)
		}
		line, _, _ := strings.Cut(sc.Text(), "#")
		lines = append(lines, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read word filter %s: %w", c.WordFilter, err)
	}
	return uniqueWords(lines), nil
}

func uniqueWords(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range in {
		w = strings.ToLower(strings.TrimSpace(w))
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
