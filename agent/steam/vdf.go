package steam

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of the KeyValues reader: Valve's files are small (an appmanifest
// is under 2 KiB, an app_info_print dump of a big game some 100 KiB).
const (
	MaxVDFBytes = 4 << 20 // larger input is refused before parsing
	MaxVDFDepth = 32      // deeper nesting of { } is refused
)

// ErrVDF is wrapped by every KeyValues syntax error.
var ErrVDF = errors.New("malformed KeyValues")

// Node is one KeyValues value: a string (Obj false) or an object of
// ordered key/value pairs (Obj true). Keys keep their spelling; lookups
// ignore case, as Valve's readers do.
type Node struct {
	Value string   // the string, when !Obj
	Obj   bool     // an object: Keys and Vals hold its pairs
	Keys  []string // keys in file order; may repeat
	Vals  []*Node  // Vals[i] is the value of Keys[i]
}

// Get follows path from n, one key per object level (case-insensitive;
// the first of repeated keys wins), and returns the node or nil.
func (n *Node) Get(path ...string) *Node {
	for _, k := range path {
		if n == nil || !n.Obj {
			return nil
		}
		var next *Node
		for i, key := range n.Keys {
			if strings.EqualFold(key, k) {
				next = n.Vals[i]
				break
			}
		}
		n = next
	}
	return n
}

// String is the string at path, or "" when it is missing or an object.
func (n *Node) String(path ...string) string {
	v := n.Get(path...)
	if v == nil || v.Obj {
		return ""
	}
	return v.Value
}

// ParseVDF reads a whole KeyValues text: a sequence of `"key" value`
// pairs, a value being a string or a { } object; quoted or bare tokens,
// `\"`, `\\`, `\n`, `\t` escapes in quoted ones, `//` comments. The result
// is an object holding the top-level pairs. Input that is too large, too
// deep, not UTF-8, holds a NUL, an unterminated string or unbalanced
// braces is an error wrapping ErrVDF that says where.
func ParseVDF(data []byte) (*Node, error) {
	p, err := newVDFParser(data)
	if err != nil {
		return nil, err
	}
	root := &Node{Obj: true}
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return root, nil
		}
		if err := p.pair(root, 0); err != nil {
			return nil, err
		}
	}
}

// parseVDFPair reads one `"key" value` pair at the start of data (after
// blanks) and returns it; the rest of data is not read.
func parseVDFPair(data []byte) (key string, val *Node, err error) {
	p, err := newVDFParser(data)
	if err != nil {
		return "", nil, err
	}
	holder := &Node{Obj: true}
	p.skipSpace()
	if err := p.pair(holder, 0); err != nil {
		return "", nil, err
	}
	return holder.Keys[0], holder.Vals[0], nil
}

type vdfParser struct {
	src  string // the whole input, checked UTF-8 without NUL
	pos  int    // next byte to read
	line int    // 1-based line of pos, for messages
}

func newVDFParser(data []byte) (*vdfParser, error) {
	if len(data) > MaxVDFBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d allowed", ErrVDF, len(data), MaxVDFBytes)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%w: not UTF-8", ErrVDF)
	}
	src := string(data)
	if i := strings.IndexByte(src, 0); i >= 0 {
		return nil, fmt.Errorf("%w: a NUL byte on line %d", ErrVDF, 1+strings.Count(src[:i], "\n"))
	}
	return &vdfParser{src: src, line: 1}, nil
}

func (p *vdfParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrVDF, p.line, fmt.Sprintf(format, args...))
}

// skipSpace passes blanks and // comments.
func (p *vdfParser) skipSpace() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "//"):
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// pair reads `key value` into obj; depth is obj's nesting level.
func (p *vdfParser) pair(obj *Node, depth int) error {
	key, err := p.token("a key")
	if err != nil {
		return err
	}
	p.skipSpace()
	if p.pos >= len(p.src) {
		return p.errorf("key %q has no value", key)
	}
	var val *Node
	switch p.src[p.pos] {
	case '{':
		if depth+1 > MaxVDFDepth {
			return p.errorf("nested deeper than %d levels", MaxVDFDepth)
		}
		p.pos++
		val = &Node{Obj: true}
		for {
			p.skipSpace()
			if p.pos >= len(p.src) {
				return p.errorf("end of input inside %q: a } is missing", key)
			}
			if p.src[p.pos] == '}' {
				p.pos++
				break
			}
			if err := p.pair(val, depth+1); err != nil {
				return err
			}
		}
	case '}':
		return p.errorf("key %q has no value", key)
	default:
		s, err := p.token("the value of " + fmt.Sprintf("%q", key))
		if err != nil {
			return err
		}
		val = &Node{Value: s}
	}
	obj.Keys = append(obj.Keys, key)
	obj.Vals = append(obj.Vals, val)
	return nil
}

// token reads a quoted or bare string; what names it in an error.
func (p *vdfParser) token(what string) (string, error) {
	if p.pos >= len(p.src) {
		return "", p.errorf("end of input where %s was expected", what)
	}
	switch c := p.src[p.pos]; c {
	case '"':
		return p.quoted(what)
	case '{', '}':
		return "", p.errorf("%q where %s was expected", c, what)
	}
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '"' || c == '{' || c == '}' {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos], nil
}

// quoted reads a "…" string with its escapes.
func (p *vdfParser) quoted(what string) (string, error) {
	startLine := p.line
	p.pos++ // the opening quote
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case '"':
			p.pos++
			return b.String(), nil
		case '\\':
			if p.pos+1 >= len(p.src) {
				p.pos++
				continue
			}
			switch e := p.src[p.pos+1]; e {
			case '\n':
				p.line++
				b.WriteString("\\\n")
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '"':
				b.WriteByte(e)
			default: // Valve's reader keeps an unknown escape as it is
				b.WriteByte('\\')
				b.WriteByte(e)
			}
			p.pos += 2
			continue
		case '\n':
			p.line++
		}
		b.WriteByte(c)
		p.pos++
	}
	return "", fmt.Errorf("%w: line %d: %s: the string opened there is never closed", ErrVDF, startLine, what)
}
