// Package healthprobe is the client side of a container health check: one
// GET of a local health URL, healthy only on 200 OK. It lets images without
// a shell or curl check themselves (`corrosion-panel healthcheck`,
// `worldsrv healthcheck`).
package healthprobe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Timeout bounds one check: connect, request and the start of the body.
const Timeout = 5 * time.Second

// maxReason is how much of an unhealthy answer's body is quoted.
const maxReason = 200

// ErrUnhealthy marks an answer other than 200 OK, or no answer.
var ErrUnhealthy = errors.New("unhealthy")

// Check GETs rawURL once within Timeout (or ctx's deadline, if sooner). It
// returns nil on 200 OK, else an error wrapping ErrUnhealthy that names the
// URL and the status with the first line of the body, or the failure.
// Redirects are not followed: a health endpoint answers itself.
func Check(ctx context.Context, rawURL string) error {
	if err := validURL(rawURL); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fmt.Errorf("health check %s: %w", rawURL, err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnhealthy, rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	return fmt.Errorf("%w: %s: %s %s", ErrUnhealthy, rawURL, resp.Status, firstLine(resp.Body))
}

// validURL accepts http and https URLs with a host.
func validURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("health check: %q is not an http:// or https:// URL with a host", rawURL)
	}
	return nil
}

// firstLine is the first line of r, at most maxReason bytes.
func firstLine(r io.Reader) string {
	s := bufio.NewScanner(io.LimitReader(r, maxReason))
	if s.Scan() {
		return strings.TrimSpace(s.Text())
	}
	return ""
}

// LocalURL is the URL that reaches a server listening on listen (host:port)
// from the same machine: a wildcard or empty host becomes 127.0.0.1. path
// starts with a slash.
func LocalURL(listen, path string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("health check: listen address %q is not host:port", listen)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + path, nil
}
