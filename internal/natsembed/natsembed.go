// Package natsembed runs an in-process NATS server with JetStream, used by
// `corrosion-panel dev` and by tests (through natstest). It holds no domain
// logic.
package natsembed

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options configure an embedded server.
type Options struct {
	Host     string // default 127.0.0.1
	Port     int    // 0 is not allowed here: pick a port (natstest finds a free one)
	StoreDir string // JetStream storage; required
	Name     string // server name, optional; required in a cluster
	Cluster  *Cluster
}

// Cluster makes the server one of a NATS cluster (routes, clustered
// JetStream). Every member needs a distinct Options.Name.
type Cluster struct {
	Name   string   // cluster name, the same on every member
	Port   int      // this member's route port on Host
	Routes []string // route URLs of the members, e.g. nats://127.0.0.1:6222 (may include this one)
}

// Start launches the server and waits until it accepts connections.
func Start(opts Options) (*server.Server, error) {
	if opts.StoreDir == "" {
		return nil, errors.New("natsembed: StoreDir is required")
	}
	if opts.Host == "" {
		opts.Host = "127.0.0.1"
	}
	sopts := &server.Options{
		ServerName: opts.Name,
		Host:       opts.Host,
		Port:       opts.Port,
		JetStream:  true,
		StoreDir:   opts.StoreDir,
		NoLog:      true,
		NoSigs:     true,
		MaxPayload: 8 << 20,
	}
	if c := opts.Cluster; c != nil {
		if opts.Name == "" || c.Name == "" || c.Port == 0 {
			return nil, errors.New("natsembed: a cluster member needs a server name, a cluster name and a route port")
		}
		sopts.Cluster = server.ClusterOpts{Name: c.Name, Host: opts.Host, Port: c.Port}
		sopts.Routes = server.RoutesFromStr(strings.Join(c.Routes, ","))
	}
	s, err := server.NewServer(sopts)
	if err != nil {
		return nil, fmt.Errorf("natsembed: new server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("natsembed: server on %s:%d not ready after 10s", opts.Host, opts.Port)
	}
	return s, nil
}
