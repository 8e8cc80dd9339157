package console

import "strings"

// Level is the severity a console line states, as far as the panel tints
// it.
type Level int

// Levels: LevelNone when the line states none (the tint then follows the
// stream).
const (
	LevelNone Level = iota
	LevelInfo
	LevelWarn
	LevelError
)

// LineLevel reads the level a line states: a logfmt `level=` field (Go's
// slog text handler: `time=… level=INFO msg=…`, quoted or not) or a JSON
// object's "level" key. Debug, trace and notice count as info; fatal,
// panic and critical as error; slog's offsets ("WARN+2") as their base.
// Anything else is LevelNone. It never fails: a line is data.
func LineLevel(text string) Level {
	v, ok := jsonLevel(text)
	if !ok {
		v, ok = logfmtLevel(text)
	}
	if !ok {
		return LevelNone
	}
	if i := strings.IndexAny(v, "+-"); i > 0 {
		v = v[:i]
	}
	switch strings.ToLower(v) {
	case "trace", "debug", "info", "notice", "dbug", "inf", "dbg":
		return LevelInfo
	case "warn", "warning", "wrn":
		return LevelWarn
	case "error", "err", "fatal", "panic", "crit", "critical", "alert", "emerg", "eror", "ftl":
		return LevelError
	}
	return LevelNone
}

// maxLevelScan bounds how far into a line the level is looked for: a
// logger puts it near the start, and lines are up to 64 KiB.
const maxLevelScan = 512

// logfmtLevel finds the first `level=` that starts a field (at the start
// of the line or after a space) and returns its value.
func logfmtLevel(s string) (string, bool) {
	s = s[:min(len(s), maxLevelScan)]
	for i := 0; ; {
		j := strings.Index(s[i:], "level=")
		if j < 0 {
			return "", false
		}
		at := i + j
		i = at + len("level=")
		if at > 0 && s[at-1] != ' ' && s[at-1] != '\t' {
			continue
		}
		rest := s[i:]
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return "", false
			}
			return rest[1 : 1+end], true
		}
		if end := strings.IndexAny(rest, " \t"); end >= 0 {
			rest = rest[:end]
		}
		return rest, rest != ""
	}
}

// jsonLevel returns the string value of a "level" key of a line that is
// a JSON object, without decoding the line: the key must follow `{` or
// `,` and be followed by `:` and a string.
func jsonLevel(s string) (string, bool) {
	t := strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(t, "{") {
		return "", false
	}
	t = t[:min(len(t), maxLevelScan)]
	for i := 0; ; {
		j := strings.Index(t[i:], `"level"`)
		if j < 0 {
			return "", false
		}
		at := i + j
		i = at + len(`"level"`)
		before := strings.TrimRight(t[:at], " \t")
		if !strings.HasSuffix(before, "{") && !strings.HasSuffix(before, ",") {
			continue
		}
		rest := strings.TrimLeft(t[i:], " \t")
		if !strings.HasPrefix(rest, ":") {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t")
		if !strings.HasPrefix(rest, `"`) {
			return "", false
		}
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return "", false
		}
		return rest[1 : 1+end], true
	}
}
