package console

import (
	"regexp"
	"strings"

	"github.com/corrosion/corrosion/internal/redact"
)

// secretWord matches a word that announces a secret: "password",
// "rcon.password", "--pass", "token", "secret"...
var secretWord = regexp.MustCompile(`(?i)^-{0,2}([a-z0-9_]+[._-])?(pass(word|wd)?|pwd|secret|token|api[_-]?key|auth)$`)

// secretPair matches key=value and key:value forms with a secret key.
var secretPair = regexp.MustCompile(`(?i)^(-{0,2}([a-z0-9_]+[._-])?(pass(word|wd)?|pwd|secret|token|api[_-]?key|auth)[=:])(.+)$`)

// RedactCommand is a console or RCON command as the audit log may keep
// it: the argument after a password-looking word ("rcon.password x",
// "setpass --password x"), the value of secret-looking key=value pairs
// and the user info of URLs are replaced by redact.Mark. Whitespace runs
// become single spaces.
func RedactCommand(cmd string) string {
	fields := strings.Fields(cmd)
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case strings.Contains(f, "://"):
			fields[i] = redact.URL(f)
		case secretPair.MatchString(f):
			fields[i] = secretPair.ReplaceAllString(f, "${1}"+redact.Mark)
		case secretWord.MatchString(f) && i+1 < len(fields):
			fields[i+1] = redact.Mark
			i++
		}
	}
	return strings.Join(fields, " ")
}
