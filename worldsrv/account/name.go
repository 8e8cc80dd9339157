package account

import "strings"

// maxNameLen is the classic name limit in characters.
const maxNameLen = 12

// encodeName is the name37 value of a player name (world-client.md), and
// the name in its stored form (lower case, underscores as spaces). ok is
// false for a name that is not 1–12 characters of a-z 0-9 _ space, or that
// starts or ends with a space or underscore.
//
// TODO(worldsrv/proto): use proto.EncodeName once that package lands; this
// local copy exists only because it was not committed yet.
func encodeName(name string) (v uint64, canonical string, ok bool) {
	if len(name) == 0 || len(name) > maxNameLen {
		return 0, "", false
	}
	if isSpace(name[0]) || isSpace(name[len(name)-1]) {
		return 0, "", false
	}
	lower := []byte(name)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' { // ASCII only: strings.ToLower would map e.g. U+212A to 'k'
			c += 'a' - 'A'
			lower[i] = c
		}
		switch {
		case c >= 'a' && c <= 'z':
			v = v*37 + uint64(c-'a'+1)
		case c >= '0' && c <= '9':
			v = v*37 + uint64(c-'0'+27)
		case isSpace(c):
			v *= 37
		default:
			return 0, "", false
		}
	}
	for v != 0 && v%37 == 0 {
		v /= 37
	}
	return v, strings.ReplaceAll(string(lower), "_", " "), true
}

func isSpace(c byte) bool { return c == ' ' || c == '_' }
