package engine

// wordFilter replaces each listed word in a text with asterisks, comparing
// ASCII letters case-insensitively (other bytes exactly), so the text keeps
// its length and stays valid UTF-8.
type wordFilter struct {
	words [][]byte // lower-cased, non-empty
}

func newWordFilter(words []string) wordFilter {
	var f wordFilter
	for _, w := range words {
		if w != "" {
			f.words = append(f.words, []byte(lowerASCII(w)))
		}
	}
	return f
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower(c)
	}
	return string(b)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// apply masks every match in text, in place, and returns text.
func (f wordFilter) apply(text []byte) []byte {
	for _, w := range f.words {
		for i := 0; i+len(w) <= len(text); i++ {
			if matchAt(text[i:], w) {
				for j := range w {
					text[i+j] = '*'
				}
				i += len(w) - 1
			}
		}
	}
	return text
}

func matchAt(text, w []byte) bool {
	for j, c := range w {
		if lower(text[j]) != c {
			return false
		}
	}
	return true
}
