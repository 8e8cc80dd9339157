// Package netprobe is one TCP reachability check: a connect with its
// latency, and the failure said in a few words ("connection refused",
// "timeout after 3s"). The agent's outbound probe and the panel's inbound
// probe both use it, so both report the same way.
package netprobe

import (
	"context"
	"errors"
	"math"
	"net"
	"os"
	"time"
)

// Millis is d in milliseconds, rounded to the microsecond, as the
// ProbeReport's latency_ms carries it.
func Millis(d time.Duration) float64 {
	return math.Round(float64(d.Microseconds())) / 1000
}

// TCP connects to addr ("host:port") within timeout (or ctx's deadline, if
// sooner) and closes the connection at once. On success it returns the
// time to resolve the name and complete the handshake in ms (µs
// precision); on failure, Describe's words for the error.
func TCP(ctx context.Context, d *net.Dialer, addr string, timeout time.Duration) (latencyMS *float64, errText string) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	conn, err := d.DialContext(ctx, "tcp", addr)
	elapsed := time.Since(start)
	if err != nil {
		return nil, Describe(ctx, err, timeout)
	}
	_ = conn.Close() // a probe only connects
	return new(Millis(elapsed)), ""
}

// Describe shortens a network error for a probe report, whose target is
// already named, to its cause: "timeout after 3s" (timeout is the budget
// that ran out), "canceled", "lookup x: no such host", "connection
// refused", ...
func Describe(ctx context.Context, err error, timeout time.Duration) string {
	var nerr net.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout(),
		errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout after " + timeout.String()
	case errors.Is(ctx.Err(), context.Canceled):
		return "canceled"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.Error()
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		var sysErr *os.SyscallError
		if errors.As(opErr.Err, &sysErr) {
			return sysErr.Err.Error() // "connection refused"
		}
		return opErr.Err.Error()
	}
	return err.Error()
}
