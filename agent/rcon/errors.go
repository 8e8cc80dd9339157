package rcon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// Sentinel errors returned (wrapped) by Exec. Use errors.Is, or Code for the
// stable wire token.
var (
	// ErrRefused: nothing accepted the connection on 127.0.0.1:port.
	ErrRefused = errors.New("rcon connection refused")
	// ErrAuth: the server rejected the password.
	ErrAuth = errors.New("rcon authentication failed")
	// ErrTimeout: the command (or the dial/auth before it) did not complete
	// within Config.Timeout or the caller's deadline.
	ErrTimeout = errors.New("rcon timed out")
	// ErrTooLarge: the response exceeded MaxResponseBytes.
	ErrTooLarge = errors.New("rcon response too large")
	// ErrProtocol: the server sent something that is not the protocol.
	ErrProtocol = errors.New("rcon protocol error")
	// ErrDisconnected: the server closed or reset the connection while a
	// command was in flight.
	ErrDisconnected = errors.New("rcon connection lost")
	// ErrClosed: the Client was closed.
	ErrClosed = errors.New("rcon client closed")
	// ErrBadCommand: Exec was called with an empty, oversized or NUL-bearing
	// command; nothing was sent.
	ErrBadCommand = errors.New("rcon bad command")
)

// Stable wire codes, one per sentinel error. They go into the "code" field of
// the agent's error reply.
const (
	CodeRefused      = "rcon_refused"
	CodeAuth         = "rcon_auth"
	CodeTimeout      = "rcon_timeout"
	CodeTooLarge     = "rcon_too_large"
	CodeProtocol     = "rcon_protocol"
	CodeDisconnected = "rcon_disconnected"
	CodeClosed       = "rcon_closed"
	CodeCanceled     = "rcon_canceled"
	CodeBadCommand   = "rcon_bad_command"
	CodeFailed       = "rcon_failed"
)

// codes maps each sentinel (and the context errors) to its wire code, in
// the order Code checks them.
var codes = []struct {
	err  error
	code string
}{
	{ErrRefused, CodeRefused},
	{ErrAuth, CodeAuth},
	{ErrTimeout, CodeTimeout},
	{context.DeadlineExceeded, CodeTimeout},
	{ErrTooLarge, CodeTooLarge},
	{ErrProtocol, CodeProtocol},
	{ErrDisconnected, CodeDisconnected},
	{ErrClosed, CodeClosed},
	{context.Canceled, CodeCanceled},
	{ErrBadCommand, CodeBadCommand},
}

// Code maps an error returned by Exec to its stable wire code; "" for nil and
// CodeFailed for anything unrecognised.
func Code(err error) string {
	if err == nil {
		return ""
	}
	if s := sentinelOf(err); s != nil {
		for _, c := range codes {
			if c.err == s {
				return c.code
			}
		}
	}
	return CodeFailed
}

// classify turns a transport error into one of the sentinels, keeping the
// original text (scrubbed by the caller where it may hold a secret) but not
// the original error value, so that no wrapped third-party error can leak a
// password through its own Error method.
func classify(ctx context.Context, step string, err error) error {
	if err == nil {
		return nil
	}
	var sentinel error
	switch {
	case isOurs(err):
		return fmt.Errorf("%s: %w", step, err)
	case ctx != nil && errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("%s: %w", step, context.Canceled)
	case isTimeout(err) || (ctx != nil && ctx.Err() != nil):
		sentinel = ErrTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		sentinel = ErrRefused
	case errors.Is(err, net.ErrClosed), isConnLost(err):
		sentinel = ErrDisconnected
	default:
		sentinel = ErrProtocol
	}
	return fmt.Errorf("%s: %w: %s", step, sentinel, err.Error())
}

// isOurs reports whether err already carries one of our sentinels.
func isOurs(err error) bool {
	s := sentinelOf(err)
	return s != nil && s != context.DeadlineExceeded && s != context.Canceled
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

func isConnLost(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF)
}

// redactedMark replaces a secret in text shown anywhere.
const redactedMark = "[redacted]"

// redactor scrubs one secret, in every form it may take in a message (raw,
// path-escaped, query-escaped), out of text.
type redactor struct {
	forms []string // immutable after newRedactor
}

func newRedactor(secret string) redactor {
	if secret == "" {
		return redactor{}
	}
	seen := map[string]bool{}
	var forms []string
	for _, f := range []string{secret, url.PathEscape(secret), url.QueryEscape(secret)} {
		if !seen[f] {
			seen[f] = true
			forms = append(forms, f)
		}
	}
	return redactor{forms: forms}
}

// String scrubs s.
func (r redactor) String(s string) string {
	for _, f := range r.forms {
		s = strings.ReplaceAll(s, f, redactedMark)
	}
	return s
}

// Error returns err with its text scrubbed. The result wraps only the
// sentinels err wraps (via classify), never err itself.
func (r redactor) Error(err error) error {
	if err == nil || len(r.forms) == 0 {
		return err
	}
	msg := err.Error()
	if clean := r.String(msg); clean != msg {
		return &scrubbed{msg: clean, cause: sentinelOf(err)}
	}
	return err
}

// scrubbed is an error whose text had a secret removed; it unwraps to the
// sentinel of the original, never to the original.
type scrubbed struct {
	msg   string
	cause error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.cause }

// sentinelOf returns the first sentinel (or context error) err wraps.
func sentinelOf(err error) error {
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.err
		}
	}
	return nil
}
