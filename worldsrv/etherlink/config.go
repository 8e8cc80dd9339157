package etherlink

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/flagval"
)

// BasePort is the ether port of node 0: a world's sidecar listens on
// 127.0.0.1:(BasePort + node id).
const BasePort = 5000

// Defaults for the zero fields of a Config.
const (
	DefaultOutFrames    = 8192
	DefaultOutBytes     = 8 << 20
	DefaultInEvents     = 8192
	DefaultInLogins     = 1024
	DefaultDialTimeout  = 5 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	DefaultProofTimeout = 5 * time.Second
)

// Config configures a Client. New keeps a defaulted copy, immutable from
// then on.
type Config struct {
	// Addr is the sidecar's link address; empty: 127.0.0.1:(5000+NodeID).
	Addr string
	// NodeID is the world's node id, sent in WorldRegister; 1-255.
	NodeID uint8
	// Token is the link token (the sidecar's RS_LINK_TOKEN). When set, the
	// listener must first prove that it knows it (LinkChallenge →
	// LinkProof) or the connection is refused (ErrNotOurSidecar); then it
	// is presented in a LinkAuth frame before anything else. Never logged.
	Token []byte
	// Info is what the world tells its sidecar about itself (WorldInfo,
	// sent after WorldRegister when any field is set): who runs it and its
	// public client URL, for the sidecar's health snapshot.
	Info proto.WorldInfo
	// QueryFeatures sends FeatureQuery after WorldRegister (and WorldInfo)
	// on every connection: a sidecar that handles it answers Features
	// (a Message event); one that speaks only the seed's table drops it
	// and answers nothing.
	QueryFeatures bool
	// Logger receives the link's state changes; nil: slog.Default().
	Logger *slog.Logger

	// OutFrames and OutBytes bound the outbound queue (frames waiting for
	// the writer); a Send beyond either is dropped. Defaults 8192 and 8 MiB.
	OutFrames int
	OutBytes  int
	// InEvents bounds the inbound queue (events waiting for Drain); a full
	// queue stops the reader. Default 8192.
	InEvents int
	// InLogins bounds the login-answer queue (LoginCheckResponse and
	// PlayerLoadResponse, which Drain hands over first); a full queue
	// stops the reader. Default 1024.
	InLogins int

	// Backoff spaces the dial attempts; zero fields take DefaultBackoff's.
	Backoff Backoff
	// DialTimeout bounds one dial; default 5 s.
	DialTimeout time.Duration
	// WriteTimeout: a write to the sidecar that makes no progress for this
	// long ends the connection (the sidecar is hung); default 30 s.
	WriteTimeout time.Duration
	// ProofTimeout bounds the wait for the listener's LinkProof (with a
	// Token); default 5 s.
	ProofTimeout time.Duration
}

// withDefaults returns c with every zero field defaulted.
func (c Config) withDefaults() Config {
	if c.Addr == "" && c.NodeID != 0 {
		c.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(BasePort+int(c.NodeID)))
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.OutFrames = flagval.Default(c.OutFrames, DefaultOutFrames)
	c.OutBytes = flagval.Default(c.OutBytes, DefaultOutBytes)
	c.InEvents = flagval.Default(c.InEvents, DefaultInEvents)
	c.InLogins = flagval.Default(c.InLogins, DefaultInLogins)
	c.DialTimeout = flagval.Default(c.DialTimeout, DefaultDialTimeout)
	c.WriteTimeout = flagval.Default(c.WriteTimeout, DefaultWriteTimeout)
	c.ProofTimeout = flagval.Default(c.ProofTimeout, DefaultProofTimeout)
	c.Backoff = c.Backoff.withDefaults()
	return c
}

// Validate reports the first bad field of c (after defaults), by name.
// It does not change c.
func (c Config) Validate() error {
	d := c.withDefaults()
	switch {
	case d.NodeID == 0:
		return errors.New("etherlink config: node id must be 1-255")
	case len(d.Token) > proto.MaxPayload-1:
		return fmt.Errorf("etherlink config: token is %d bytes; a frame carries at most %d", len(d.Token), proto.MaxPayload-1)
	case d.OutBytes < proto.HeaderLen+proto.MaxPayload:
		return fmt.Errorf("etherlink config: out bytes %d cannot hold one largest frame (%d)", d.OutBytes, proto.HeaderLen+proto.MaxPayload)
	case d.Backoff.Max < d.Backoff.Min:
		return fmt.Errorf("etherlink config: backoff max %v is below min %v", d.Backoff.Max, d.Backoff.Min)
	}
	if _, _, err := net.SplitHostPort(d.Addr); err != nil {
		return fmt.Errorf("etherlink config: addr %q: %w", d.Addr, err)
	}
	return nil
}
