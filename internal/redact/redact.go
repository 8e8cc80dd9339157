// Package redact hides the credentials in URLs (NATS server URLs and lists
// of them) before they are shown in a message or a log line. It parses
// instead of matching a pattern, and where a URL is ambiguous it hides more
// rather than less. No domain logic.
package redact

import (
	"net/url"
	"strings"
)

// Mark replaces the whole userinfo (user name, password or token) of a URL.
const Mark = "xxxxx"

// URL returns raw with its userinfo replaced by Mark
// ("nats://xxxxx@host:4222"). A URL without credentials comes back as it
// is. The user name is hidden too: in a token URL ("nats://TOKEN@host") it
// is the secret.
//
// The userinfo is what url.Parse takes it to be: from after "scheme://" to
// the last '@' of the authority. When an '@' also appears after the
// authority (a password holding an unescaped '/', '?' or '#' cuts the URL
// short there, so url.Parse would see a host made of part of the password)
// or raw does not parse at all, everything up to the last '@' of raw is
// hidden instead: a password with any characters never shows, even in
// part.
func URL(raw string) string {
	at := strings.LastIndexByte(raw, '@')
	if at < 0 {
		return raw // no userinfo delimiter: nothing secret to hide
	}
	start := authorityStart(raw)
	if at < start {
		start = 0 // not a URL we understand: hide all before the '@'
	}
	return raw[:start] + Mark + raw[at:]
}

// List redacts a comma-separated list of URLs (nats_url,
// RS_CLUSTER_HOSTS). A comma separates URLs, as in nats.go. When every
// entry parses as a URL with a scheme, each is redacted on its own;
// otherwise (a password holding a comma or other characters that break the
// list apart) the list is redacted as if it were one URL, from the first
// "://" to the last '@'.
func List(s string) string {
	pieces := strings.Split(s, ",")
	for _, p := range pieces {
		if _, err := url.Parse(strings.TrimSpace(p)); err != nil || !strings.Contains(p, "://") {
			return URL(s)
		}
	}
	for i, p := range pieces {
		pieces[i] = URL(p)
	}
	return strings.Join(pieces, ",")
}

// Strings redacts each URL of list, for logging a []string of servers.
func Strings(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = URL(s)
	}
	return out
}

// authorityStart is the index after "scheme://" (0 when there is none, for
// a bare "user:pass@host:port").
func authorityStart(raw string) int {
	if i := strings.Index(raw, "://"); i >= 0 {
		return i + 3
	}
	return 0
}
