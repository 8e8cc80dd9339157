package wire

import (
	"time"
	"unicode/utf8"
)

// AppendJSON appends m encoded as JSON. It decodes (encoding/json) to the
// same message as json.Marshal's output would, with invalid UTF-8 replaced
// by U+FFFD as json.Marshal does, at a fraction of the cost: the console
// path encodes every line a game prints.
func (m *ConsoleMessage) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"timestamp":"`...)
	dst = m.Timestamp.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","instance_id":`...)
	dst = appendJSONString(dst, m.InstanceID)
	dst = append(dst, `,"lines":[`...)
	for i, l := range m.Lines {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"stream":`...)
		dst = appendJSONString(dst, l.Stream)
		dst = append(dst, `,"text":`...)
		dst = appendJSONString(dst, l.Text)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
