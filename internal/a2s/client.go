package a2s

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// maxChallenges is how many S2C_CHALLENGE replies one query answers before
// it gives up: a server asks once; one that keeps asking is broken.
const maxChallenges = 2

// Query sends A2S_INFO to addr ("host:port", UDP) and returns the info
// reply, answering a challenge by re-sending with it. ctx bounds the whole
// exchange (callers give it a deadline; without one Query waits for ctx).
// A reply that does not decode is an error wrapping ErrMalformed or
// ErrSplit; a closed port is usually "connection refused" (an ICMP
// unreachable), a filtered one a timeout.
func Query(ctx context.Context, d *net.Dialer, addr string) (Info, error) {
	conn, err := d.DialContext(ctx, "udp", addr)
	if err != nil {
		return Info{}, err
	}
	defer func() { _ = conn.Close() }()
	if dl, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(dl); err != nil {
			return Info{}, err
		}
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) }) // cancel unblocks the read
	defer stop()

	buf := make([]byte, MaxPacket+1) // one byte more shows an overlong packet
	var challenge []byte
	for range maxChallenges + 1 {
		if _, err := conn.Write(AppendRequest(nil, challenge)); err != nil {
			return Info{}, ioErr(ctx, err)
		}
		n, err := conn.Read(buf)
		if err != nil {
			return Info{}, ioErr(ctx, err)
		}
		r, err := Decode(buf[:n])
		if err != nil {
			return Info{}, err
		}
		if r.Info != nil {
			return *r.Info, nil
		}
		challenge = r.Challenge
	}
	return Info{}, fmt.Errorf("%w: still challenged after %d answers", ErrMalformed, maxChallenges)
}

// ioErr prefers ctx's error, so a canceled query says so rather than
// reporting the deadline the cancel forced.
func ioErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(cerr, context.DeadlineExceeded) {
		return cerr
	}
	return err
}
