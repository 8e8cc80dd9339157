// Package httpx is the shape every panel HTTP handler takes: a route table
// entry (pattern, what the caller needs, audit action) and a handler that
// returns an error, rendered on one path. The server enforces Need before
// a handler runs — for patterns with a {license} wildcard that includes the
// license grant — and writes the audit row for every route with an Audit
// action, denied attempts included. Only panel packages import it.
package httpx

import (
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/corrosion/corrosion/panel/auth"
)

// Need is what a caller must be to reach a route.
type Need int

const (
	Public Need = iota // anyone, logged in or not (login page, static files, health)
	View               // logged in; with {license} in the pattern: CanView(license)
	Act                // logged in, not a viewer; with {license}: CanAct(license)
	Admin              // an admin
)

// Handler serves one request for a known principal (nil on Public routes
// when nobody is logged in). A returned error is rendered by the server:
// an *Error with its status and message, anything else as a 500 that is
// logged and not shown.
type Handler func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error

// Route is one entry of a route table.
type Route struct {
	Pattern string // net/http ServeMux pattern with method, e.g. "POST /hosts/{license}/instances/{instance}/power"
	Need    Need
	// Audit names the action written to the audit log for every request
	// that reaches this route (allowed, denied or failed), e.g. "instance.power".
	// Empty: not audited (reads).
	Audit string
	// MaxForm bounds a url-encoded form body, which the server reads and
	// checks before the handler runs; 0: DefaultMaxForm.
	MaxForm int64
	// OwnBadInput runs the handler even when the query or form holds text
	// that is not ValidText (or the form cannot be read); the handler gets
	// the refusal from server.BadInput and answers it itself (the login
	// form: a bad form is a failed login, rate-limited and audited).
	// Otherwise the server answers such a request 400 before the handler.
	OwnBadInput bool
	Handler     Handler
}

// DefaultMaxForm is the largest url-encoded form body a route takes by
// default (net/http's own bound on ParseForm).
const DefaultMaxForm = 10 << 20

// Error is an error with an HTTP status and a message meant for the operator.
type Error struct {
	Status  int
	Message string // shown to the operator, in words ("another power action is running")
	Err     error  // the cause, logged; may be nil
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the status and a formatted message.
func Errorf(status int, format string, a ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, a...)}
}

// Wrap returns an *Error with the status, message and cause.
func Wrap(status int, message string, err error) *Error {
	return &Error{Status: status, Message: message, Err: err}
}

// Denied is the error for a caller that lacks a grant or role.
var Denied = &Error{Status: http.StatusForbidden, Message: "you are not allowed to do that"}

// StatusOf returns the HTTP status an error renders with.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return http.StatusInternalServerError
}

// Feature is a part of the panel that serves routes (fleet pages, console,
// files, social health...). The server mounts every feature's routes.
type Feature interface {
	Routes() []Route
}

// ValidText reports whether s is text the panel accepts from a request
// (a query, a form field): valid UTF-8 without NUL bytes. Anything else
// would reach PostgreSQL, which refuses it, or an agent, which would store
// it silently changed.
func ValidText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// NotText is the end of every refusal of text that is not ValidText.
const NotText = "is not UTF-8 text or holds a NUL byte"

// CheckValues returns a 400 naming the first field of v (in where: "the
// address", "the form") whose name or value is not ValidText.
func CheckValues(where string, v url.Values) error {
	for k, vs := range v {
		if !ValidText(k) {
			return Errorf(http.StatusBadRequest, "%s holds a field name that %s", where, NotText)
		}
		for _, s := range vs {
			if !ValidText(s) {
				return Errorf(http.StatusBadRequest, "the field %q of %s %s", k, where, NotText)
			}
		}
	}
	return nil
}

// CheckMultipart is CheckValues for a parsed multipart form (an upload):
// its fields, and its files' field names and file names, must be
// ValidText.
func CheckMultipart(f *multipart.Form) error {
	if err := CheckValues("the form", f.Value); err != nil {
		return err
	}
	for k, fhs := range f.File {
		if !ValidText(k) {
			return Errorf(http.StatusBadRequest, "the form holds a field name that %s", NotText)
		}
		for _, fh := range fhs {
			if !ValidText(fh.Filename) {
				return Errorf(http.StatusBadRequest, "the name of the uploaded file %s", NotText)
			}
		}
	}
	return nil
}

// Truncate cuts s to at most n bytes on a rune boundary (a cut never
// splits a character).
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Printable is s made fit to show and store when it is not ValidText:
// invalid bytes become U+FFFD and NUL bytes are dropped.
func Printable(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
