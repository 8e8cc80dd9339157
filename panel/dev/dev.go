// Package dev is `corrosion-panel dev` (DESIGN.md section 3): the whole
// system on one machine — an embedded NATS server with JetStream, a
// throwaway Postgres when no DATABASE_URL is given, the panel, and the
// real corrosion-agent managing a demo fleet of two worlds with their
// ether sidecars. Ctrl-C stops everything it started. Only panel packages
// import it.
package dev

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/internal/childproc"
	"github.com/corrosion/corrosion/internal/natsembed"
	"github.com/corrosion/corrosion/internal/portowner"
	"github.com/corrosion/corrosion/panel/app"
)

// PortMode is where the demo worlds listen.
type PortMode string

const (
	// PortsDesign: DESIGN.md's ports (world 1 on 8080, its game port
	// 43594, RCON 25510, sidecar 5010; world 2 one above).
	PortsDesign PortMode = "design"
	// PortsFree: free ports picked at start (tests, or a second demo).
	PortsFree PortMode = "free"
)

// Valid reports whether m is one of the modes.
func (m PortMode) Valid() bool { return m == PortsDesign || m == PortsFree }

// Defaults.
const (
	DefaultListen   = app.DefaultListen
	DefaultNATSPort = 4222
)

// Options configure a dev run.
type Options struct {
	Listen      string   // the panel's HTTP address; default 127.0.0.1:7780
	NATSPort    int      // the embedded NATS server's port on 127.0.0.1; default 4222
	WorldPorts  PortMode // default PortsDesign
	DatabaseURL string   // "": a throwaway Postgres from the machine's binaries
	PanelLog    slog.Level
	Out         io.Writer    // the banner (URLs and the admin login)
	Log         *slog.Logger // dev's and the panel's log
}

// Validate names the first bad field; it does not change o.
func (o Options) Validate() error {
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return fmt.Errorf("%w: --listen %q is not host:port", app.ErrConfig, o.Listen)
	}
	if o.NATSPort < 1 || o.NATSPort > 65535 {
		return fmt.Errorf("%w: --nats-port %d is not 1-65535", app.ErrConfig, o.NATSPort)
	}
	if !o.WorldPorts.Valid() {
		return fmt.Errorf("%w: --world-ports %q is not design or free", app.ErrConfig, o.WorldPorts)
	}
	return nil
}

// cleanups run last-registered first.
type cleanups []func()

func (c *cleanups) add(fn func()) { *c = append(*c, fn) }

func (c cleanups) run() {
	for _, fn := range slices.Backward(c) {
		fn()
	}
}

// Run starts the demo system, prints the banner, and stops everything it
// started when ctx ends.
func Run(ctx context.Context, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	worlds, err := planWorlds(o.WorldPorts)
	if err != nil {
		return err
	}
	if err := checkPorts(o, worlds); err != nil {
		return err
	}
	bins, err := findBinaries()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "corrosion-dev-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	var stack cleanups
	defer func() { stack.run() }() // the stack as it is at return
	stack.add(func() { os.RemoveAll(dir) })
	s := &session{o: o, bins: bins, worlds: worlds, dir: dir, stack: &stack, failed: make(chan error, 2)}
	if err := s.start(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // Ctrl-C while starting
		}
		return err
	}
	select {
	case <-ctx.Done():
	case err := <-s.failed:
		fmt.Fprintln(o.Out, "stopping everything:", err)
		return err
	}
	fmt.Fprintln(o.Out, "stopping the demo fleet, the agent, the panel, NATS and Postgres…")
	return nil
}

// binaries are the programs the demo runs.
type binaries struct{ agent, ether, world string }

func findBinaries() (binaries, error) {
	var b binaries
	var err error
	if b.agent, err = childproc.FindBinary("corrosion-agent"); err != nil {
		return b, err
	}
	if b.ether, err = childproc.FindBinary("ether"); err != nil {
		return b, err
	}
	b.world, err = childproc.FindBinary("worldsrv")
	return b, err
}

// checkPorts says in one line which port dev needs is taken, and by
// which process (internal/portowner), before anything starts. The world
// ports are checked in PortsDesign only: PortsFree picked free ones.
func checkPorts(o Options, worlds []world) error {
	check := func(addr, what, hint string) error {
		l, err := net.Listen("tcp", addr)
		if err == nil {
			l.Close()
			return nil
		}
		holder := "another program"
		if _, p, err := net.SplitHostPort(addr); err == nil {
			if port, err := strconv.Atoi(p); err == nil && port > 0 {
				holder = portowner.Describe(port)
			}
		}
		return fmt.Errorf("%s (%s) is held by %s: is another `make run` or server running? stop it or %s", addr, what, holder, hint)
	}
	if err := check(o.Listen, "the panel", "pass --listen"); err != nil {
		return err
	}
	if err := check(net.JoinHostPort("127.0.0.1", strconv.Itoa(o.NATSPort)), "NATS", "pass --nats-port"); err != nil {
		return err
	}
	if o.WorldPorts != PortsDesign {
		return nil
	}
	for _, w := range worlds {
		ports := []struct {
			what string
			port int
		}{{w.ether() + "'s port", w.etherPort}, {w.id() + "'s game port", w.gamePort},
			{w.id() + "'s HTTP", w.httpPort}, {w.id() + "'s RCON", w.rconPort}}
		for _, p := range ports {
			if err := check(net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)), p.what, "pass --world-ports free"); err != nil {
				return err
			}
		}
	}
	return nil
}

// session is one dev run's state while it starts.
type session struct {
	o      Options    // immutable
	bins   binaries   // immutable
	worlds []world    // immutable
	dir    string     // immutable; the run's temporary directory
	stack  *cleanups  // appended to by start only (one goroutine), run by Run
	failed chan error // a part that stopped on its own (the agent, the panel); buffered
}

// fail reports a part that stopped on its own; Run then stops the rest.
func (s *session) fail(err error) {
	select {
	case s.failed <- err:
	default:
	}
}

func (s *session) start(ctx context.Context) error {
	natsURL, err := s.startNATS()
	if err != nil {
		return err
	}
	db, err := startDB(ctx, s.o.DatabaseURL, s.o.Log)
	if err != nil {
		return err
	}
	s.stack.add(db.stop)
	password, err := prepareStore(ctx, db.panelDSN)
	if err != nil {
		return err
	}
	if err := etherMigrate(ctx, s.bins.ether, db.game, natsURL); err != nil {
		return err
	}
	panelAddr, err := s.startPanel(db.panelDSN, natsURL)
	if err != nil {
		return err
	}
	nc, err := nats.Connect(natsURL, nats.Name("corrosion-panel dev"))
	if err != nil {
		return fmt.Errorf("connect to the embedded NATS: %w", err)
	}
	s.stack.add(nc.Close)
	if err := s.startAgent(natsURL, panelAddr, db.game, nc); err != nil {
		return err
	}
	s.banner(panelAddr, password, natsURL, db)
	go watchWorlds(ctx, s.worlds, s.o.Out)
	return nil
}

func (s *session) startNATS() (string, error) {
	ns, err := natsembed.Start(natsembed.Options{Host: "127.0.0.1", Port: s.o.NATSPort,
		StoreDir: filepath.Join(s.dir, "nats"), Name: "corrosion-dev"})
	if err != nil {
		return "", fmt.Errorf("start NATS on 127.0.0.1:%d: %w", s.o.NATSPort, err)
	}
	s.stack.add(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return ns.ClientURL(), nil
}

// startPanel serves the panel in this process until the cleanup.
func (s *session) startPanel(dsn, natsURL string) (string, error) {
	ln, err := net.Listen("tcp", s.o.Listen)
	if err != nil {
		return "", fmt.Errorf("panel listen %s: %w", s.o.Listen, err)
	}
	cfg := app.DefaultConfig()
	cfg.Listen, cfg.DatabaseURL, cfg.NATSURL, cfg.LogLevel = ln.Addr().String(), dsn, natsURL, s.o.PanelLog
	cfg.ProbePrivate = true // the demo fleet is on loopback
	pctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := app.Serve(pctx, cfg, ln, s.o.Log.With("component", "panel")); err != nil {
			s.fail(fmt.Errorf("the panel stopped: %w", err))
		}
	}()
	s.stack.add(func() {
		cancel()
		<-done
	})
	return ln.Addr().String(), nil
}

func (s *session) startAgent(natsURL, panelAddr string, db gameDB, nc *nats.Conn) error {
	_, port, _ := net.SplitHostPort(panelAddr)
	panelPort, _ := strconv.Atoi(port)
	cfgPath, err := writeAgentConfig(fleetPlan{dir: s.dir, natsURL: natsURL, panelPort: panelPort,
		etherBin: s.bins.ether, worldBin: s.bins.world, db: db, worlds: s.worlds, rconPass: GeneratePassword()})
	if err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(s.dir, "agent.log"))
	if err != nil {
		return fmt.Errorf("agent log: %w", err)
	}
	s.stack.add(func() { logf.Close() })
	a, err := startAgent(s.bins.agent, cfgPath, filepath.Join(s.dir, "agent-state"), logf, s.o.Log)
	if err != nil {
		return err
	}
	s.stack.add(func() { a.stop(nc, s.worlds) })
	go func() {
		<-a.exited
		if !a.stopping.Load() {
			tail, _ := os.ReadFile(logf.Name())
			s.fail(fmt.Errorf("corrosion-agent exited on its own (%v); its last lines:\n%s", a.cmd.ProcessState, lastLines(string(tail), 10)))
		}
	}()
	return nil
}

func (s *session) banner(panelAddr, password, natsURL string, db dbHandle) {
	w := s.o.Out
	fmt.Fprintf(w, "\ncorrosion-panel dev: the demo fleet is starting (two worlds with their sidecars, license %q)\n\n", License)
	fmt.Fprintf(w, "  panel     http://%s\n", panelAddr)
	fmt.Fprintf(w, "  username: admin  password: %s\n", password)
	for _, wd := range s.worlds {
		fmt.Fprintf(w, "  world %d   %s\n", wd.number(), wd.ClientURL())
	}
	fmt.Fprintf(w, "  NATS      %s\n  Postgres  %s\n", natsURL, db.shown)
	fmt.Fprintf(w, "  agent log %s\n\nCtrl-C stops everything.\n", filepath.Join(s.dir, "agent.log"))
}
