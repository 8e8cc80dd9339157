// Package flagval parses the typed values that a binary's config takes from
// flags and environment variables alike: one setter per type (for
// flag.Func and for an env table), the log level, a config's table of
// settings (Var: flag, variable, usage, setter) with its flag set and
// loader, and the seed's RS_DB_* database settings (DB). ether and worldsrv
// layer their RS_* environment and flags through it, so a value means the
// same in both and a bad one is refused in the same words.
package flagval

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// Setter stores a parsed value, or says in a few words why s is not one.
type Setter func(s string) error

// String stores s as it is.
func String(p *string) Setter { return func(s string) error { *p = s; return nil } }

// parsed is the Setter of one type: it stores what parse makes of s (with
// the white space around it trimmed), or refuses s in the words why.
func parsed[T any](p *T, why string, parse func(s string) (T, bool)) Setter {
	return func(s string) error {
		v, ok := parse(strings.TrimSpace(s))
		if !ok {
			return errors.New(why)
		}
		*p = v
		return nil
	}
}

// Int stores a decimal integer.
func Int(p *int) Setter {
	return parsed(p, "not a number", func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil
	})
}

// Port stores a TCP port, 0-65535 (0: pick one).
func Port(p *int) Setter {
	return parsed(p, "not a TCP port 0-65535", func(s string) (int, bool) {
		n, err := strconv.ParseUint(s, 10, 16)
		return int(n), err == nil
	})
}

// NodeID stores a world node id, 1-255.
func NodeID(p *uint8) Setter {
	return parsed(p, "not a node id 1-255", func(s string) (uint8, bool) {
		n, err := strconv.ParseUint(s, 10, 8)
		return uint8(n), err == nil && n != 0
	})
}

// Bool stores true or false (and the other spellings strconv takes).
func Bool(p *bool) Setter {
	return parsed(p, "not true or false", func(s string) (bool, bool) {
		v, err := strconv.ParseBool(s)
		return v, err == nil
	})
}

// Duration stores a Go duration such as 10s or 500ms.
func Duration(p *time.Duration) Setter {
	return parsed(p, "not a duration like 10s or 500ms", func(s string) (time.Duration, bool) {
		d, err := time.ParseDuration(s)
		return d, err == nil
	})
}

// List stores a comma-separated list, without blanks and empty parts.
func List(p *[]string) Setter {
	return func(s string) error {
		var out []string
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
		*p = out
		return nil
	}
}

// Level stores a log level (see ParseLevel).
func Level(p *slog.Level) Setter {
	return func(s string) error {
		l, err := ParseLevel(s)
		if err != nil {
			return err
		}
		*p = l
		return nil
	}
}

// ParseLevel reads debug, info (also empty), warn (also warning) or error,
// in any case.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %q (debug, info, warn, error)", s)
}

// LevelName is the name ParseLevel takes for l, or l's number when it is
// none of the four levels (which a config's Validate refuses).
func LevelName(l slog.Level) string {
	switch l {
	case slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError:
		return strings.ToLower(l.String())
	}
	return strconv.Itoa(int(l))
}

// maxSecretFile caps a secret file: a password or token, not a document.
const maxSecretFile = 64 << 10

// SecretFile stores the content of the file named s, less one trailing
// line break: the -file form of a secret, which keeps it out of the
// process list (a flag's value is visible to every local user in ps, an
// environment variable or a file is not). An unreadable, empty or
// oversized file is refused, naming the file but never its content.
func SecretFile(p *string) Setter {
	return func(s string) error {
		f, err := os.Open(s)
		if err != nil {
			return fmt.Errorf("cannot read the secret file: %w", err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
		switch {
		case err != nil:
			return fmt.Errorf("cannot read the secret file %s: %w", s, err)
		case len(b) > maxSecretFile:
			return fmt.Errorf("the secret file %s is over %d KiB: not a password or token", s, maxSecretFile>>10)
		}
		v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if v == "" {
			return fmt.Errorf("the secret file %s is empty", s)
		}
		*p = v
		return nil
	}
}

// NoDefault is the shown value of a -file flag: the file's name is not
// kept, and its content is the secret's, shown by the secret's own flag.
func NoDefault() string { return "" }

// Shown is how a secret appears in usage and config dumps: "***" when it
// is set, "" when not.
func Shown(secret string) string {
	if secret == "" {
		return ""
	}
	return "***"
}

// SecretUsage is the usage of a flag that takes a secret on the command
// line: it says the value is visible to ps and names the forms that are
// not (env may be "" when the secret has no variable).
func SecretUsage(usage, env, fileFlag string) string {
	alt := "--" + fileFlag
	if env != "" {
		alt = "$" + env + " or " + alt
	}
	return usage + "; on the command line it is visible to every local user (ps): prefer " + alt
}
