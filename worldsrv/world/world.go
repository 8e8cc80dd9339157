package world

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	webworld "github.com/corrosion/corrosion/web/world"
	"github.com/corrosion/corrosion/worldsrv/account"
	"github.com/corrosion/corrosion/worldsrv/admin"
	"github.com/corrosion/corrosion/worldsrv/config"
	"github.com/corrosion/corrosion/worldsrv/engine"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
	"github.com/corrosion/corrosion/worldsrv/httpapi"
	"github.com/corrosion/corrosion/worldsrv/netserve"
	"github.com/corrosion/corrosion/worldsrv/sidecar"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// tickInterval is the engine's tick.
const tickInterval = engine.DefaultTickInterval

// MapSize is the side of the world's square map, in tiles.
const MapSize = 256

// Shutdown budgets.
const (
	// closeGrace is how long the game connections get to write their last
	// frames (LoggedOut) before they are closed.
	closeGrace = 2 * time.Second
	// linkFlushGrace is how long the link gets to send the last saves.
	linkFlushGrace = 5 * time.Second
	// sidecarStopBudget bounds ether's graceful stop.
	sidecarStopBudget = 20 * time.Second
	// httpCloseGrace bounds the HTTP server's shutdown.
	httpCloseGrace = 2 * time.Second
)

// World is one running world process.
type World struct {
	cfg     config.Config // immutable after New
	log     *slog.Logger
	started time.Time
	world   *terrain.Map

	side   *sidecar.Sidecar  // nil unless --ether spawn
	link   *etherlink.Client // nil when --ether off
	pool   *pgxpool.Pool
	engine *engine.Engine
	net    *netserve.Server
	http   *http.Server
	gameLn net.Listener
	httpLn net.Listener
	admin  *admin.Server // nil when --rcon-password is empty
	rconLn net.Listener  // nil when --rcon-password is empty

	running atomic.Bool // engine.Run is running
}

// New prepares every part and binds the listeners; nothing serves until
// Run. ctx bounds the start-up (migration, spawning ether). On error,
// whatever New had started is stopped.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (_ *World, err error) {
	w := &World{cfg: cfg, log: log, started: time.Now()}
	defer func() {
		if err != nil {
			w.release()
		}
	}()
	words, err := cfg.Words()
	if err != nil {
		return nil, err
	}
	if _, err := account.Migrate(ctx, cfg.DB.URL()); err != nil {
		return nil, fmt.Errorf("migrate the world's tables in %s: %w", cfg.DB, err)
	}
	w.world = terrain.Generate(cfg.Seed, cfg.Biome, MapSize, MapSize)
	log.Info(fmt.Sprintf("world %d: seed %#x biome %s", cfg.World(), cfg.Seed, cfg.Biome),
		"seed", cfg.Seed, "biome", cfg.Biome.String(), "map", fmt.Sprintf("%x", w.world.Hash()))
	if err := w.startEther(ctx); err != nil {
		return nil, err
	}
	if err := w.openAccounts(ctx); err != nil {
		return nil, err
	}
	if err := w.build(words); err != nil {
		return nil, err
	}
	return w, nil
}

// startEther spawns the sidecar (--ether spawn) and makes the link
// (unless --ether off).
func (w *World) startEther(ctx context.Context) error {
	cfg := w.cfg
	if cfg.Ether == config.EtherOff {
		w.log.Info("ether off: no sidecar, no social features")
		return nil
	}
	if cfg.Ether == config.EtherSpawn {
		s, err := sidecar.New(sidecar.Config{Binary: cfg.EtherBin, NodeID: cfg.NodeID, Port: cfg.EtherPort,
			DB:      cfg.DB,
			Cluster: cfg.Cluster, LinkToken: cfg.LinkToken, Logger: w.log,
			Env: map[string]string{"CORROSION_LICENSE_ID": cfg.LicenseID, "CORROSION_INSTANCE_ID": cfg.InstanceID}})
		if err != nil {
			return err
		}
		w.side = s
		if err := s.Start(ctx); err != nil {
			return err
		}
		if err := s.Wait(ctx); err != nil {
			if ctx.Err() != nil {
				return err
			}
			// The world serves without its sidecar (not ready, logins
			// answered "login server offline") until its link finds the
			// sidecar, proved by the link token, once it is up.
			w.log.Warn("ether sidecar not ready; serving unlinked until it is", "err", err)
		}
	}
	w.link = etherlink.New(etherlink.Config{Addr: cfg.EtherAddr(), NodeID: cfg.NodeID,
		Token: []byte(cfg.LinkToken), Info: cfg.WorldInfo(), Logger: w.log,
		QueryFeatures: true}) // the client adds component=etherlink and addr; Features lets logins overlap their password check (engine)
	return nil
}

func (w *World) openAccounts(ctx context.Context) error {
	pool, err := pgxpool.New(ctx, w.cfg.DB.URL())
	if err != nil {
		return fmt.Errorf("open database %s: %w", w.cfg.DB, err)
	}
	w.pool = pool
	return nil
}

// build makes the engine, the HTTP surface and the listeners.
func (w *World) build(words []string) error {
	cfg := w.cfg
	acc, err := account.Open(context.Background(), w.pool, account.Options{Autoregister: cfg.Autoregister})
	if err != nil {
		return fmt.Errorf("open accounts: %w", err)
	}
	deps := engine.Deps{Logger: w.log, Map: w.world, Accounts: storeAccounts{acc}}
	if w.link != nil {
		deps.Link = w.link
	}
	w.engine, err = engine.New(engine.Config{NodeID: cfg.NodeID, TickInterval: tickInterval, MaxPlayers: cfg.MaxPlayers,
		MaxPerAddress: cfg.MaxConnsPerIP, WordFilter: words, EtherOff: w.link == nil}, deps)
	if err != nil {
		return err
	}
	if w.net, err = netserve.New(netserve.Options{Engine: w.engine, Logger: w.log}); err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(&collector{w: w})
	api, err := httpapi.New(httpapi.Options{Map: w.world, Status: (*probe)(w), Probe: (*probe)(w),
		Metrics: reg, Logger: w.log.With("component", "http")})
	if err != nil {
		return err
	}
	api.Handle("GET /ws", w.net.WebSocket())
	client, err := webworld.New(webworld.Options{World: cfg.World()})
	if err != nil {
		return err
	}
	api.Handle("GET "+webworld.PagePath, client)
	api.Handle("GET "+webworld.StaticPrefix, client)
	if err := w.buildAdmin(api); err != nil {
		return err
	}
	w.http = &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	if w.gameLn, err = net.Listen("tcp", cfg.GameListen); err != nil {
		return fmt.Errorf("listen for game clients on %s: %w", cfg.GameListen, err)
	}
	if w.httpLn, err = net.Listen("tcp", cfg.HTTPListen); err != nil {
		return fmt.Errorf("listen for HTTP on %s: %w", cfg.HTTPListen, err)
	}
	return nil
}

// buildAdmin makes the admin console when --rcon-password is set: Source
// RCON on --rcon-listen, WebRCON at /rcon/{password} on the HTTP port.
func (w *World) buildAdmin(api *httpapi.Server) error {
	if !w.cfg.RCONEnabled() {
		return nil
	}
	adm, err := admin.New(admin.Config{Password: w.cfg.RCONPassword, Console: w.engine, Logger: w.log})
	if err != nil {
		return err
	}
	if w.rconLn, err = net.Listen("tcp", w.cfg.RCONListen); err != nil {
		return fmt.Errorf("listen for Source RCON on %s: %w", w.cfg.RCONListen, err)
	}
	w.admin = adm
	api.Handle("GET /rcon/{password}", adm.WebHandler())
	return nil
}

// Console is the world as the admin commands see it, for the console
// input (stdin) beside RCON.
func (w *World) Console() admin.Console { return w.engine }

// GameAddr and HTTPAddr are the bound listeners' addresses.
func (w *World) GameAddr() net.Addr { return w.gameLn.Addr() }

// HTTPAddr is the HTTP listener's address.
func (w *World) HTTPAddr() net.Addr { return w.httpLn.Addr() }

// Run serves until ctx ends or an admin "shutdown" has run its countdown
// (engine.Stopping; Run then returns nil, so the process exits 0), then
// shuts down in this order:
//
//  1. stop accepting game connections (the TCP listener closes, /ws answers 503);
//  2. the engine stops logins (BeginShutdown) and runs a last tick that saves
//     and logs everyone out (LoggedOut "world shutting down"); then the admin
//     console closes (Source RCON listener and every session);
//  3. the game connections write those last frames and close;
//  4. the ether link sends the queued saves (bounded), then closes;
//  5. the sidecar stops, with a fresh timeout context (not the cancelled
//     root one, which would kill ether before it flushes its writes);
//  6. HTTP closes; the database pool closes.
func (w *World) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	stopLink := func() {}
	if w.link != nil {
		stopLink = spawn(&wg, w.log, w.link.Run)
	}
	engineCtx, stopEngine := context.WithCancel(context.Background())
	engineDone := make(chan error, 1)
	w.running.Store(true)
	go func() { engineDone <- w.engine.Run(engineCtx); w.running.Store(false) }()
	httpDone := make(chan error, 1)
	go func() { httpDone <- w.http.Serve(w.httpLn) }()
	gameDone := make(chan error, 1)
	go func() { gameDone <- w.net.ServeTCP(w.gameLn) }()
	adminDone := make(chan error, 1)
	if w.admin != nil {
		go func() { adminDone <- w.admin.ServeSource(context.Background(), w.rconLn) }()
		w.log.Info("admin console on", "rcon", w.rconLn.Addr().String(), "webrcon", "/rcon/{password}")
	}
	w.log.Info("world ready", "game", w.gameLn.Addr().String(), "http", w.httpLn.Addr().String(),
		"ether", string(w.cfg.Ether))

	var err error
	select {
	case <-ctx.Done():
	case <-w.engine.Stopping():
		w.log.Info("admin shutdown: the world stops")
	case err = <-adminDone:
		err = fmt.Errorf("serve Source RCON: %w", err)
	case err = <-engineDone:
		err = fmt.Errorf("engine stopped: %w", errors.Join(err, errors.New("tick loop ended")))
		engineDone <- nil
	case err = <-httpDone:
		err = fmt.Errorf("serve HTTP: %w", err)
	}
	w.shutdown(stopEngine, engineDone, gameDone, stopLink)
	wg.Wait()
	w.log.Info("world stopped")
	return err
}

// shutdown runs Run's teardown, in the order written on Run.
func (w *World) shutdown(stopEngine func(), engineDone, gameDone <-chan error, stopLink func()) {
	w.log.Info("world shutting down", "players", w.engine.Stats().Players)
	w.net.StopAccepting()
	<-gameDone
	w.engine.BeginShutdown()
	stopEngine()
	<-engineDone
	if w.admin != nil {
		// After the engine: the reply to "shutdown 0" has had the
		// engine's last tick to reach its operator.
		w.admin.Close()
	}
	cctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	w.net.Close(cctx)
	cancel()
	w.flushLink()
	stopLink()
	w.stopSidecar()
	hctx, hcancel := context.WithTimeout(context.Background(), httpCloseGrace)
	_ = w.http.Shutdown(hctx)
	hcancel()
	w.pool.Close()
}

// flushLink waits, bounded, until the sidecar has acknowledged every save
// the engine sent it (the players' last saves): bytes written to the socket
// are not yet stored, and stopping ether before it has read them loses
// them.
func (w *World) flushLink() {
	if w.link == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), linkFlushGrace)
	defer cancel()
	if err := w.link.Flush(ctx); err != nil {
		w.log.Warn("ether link closed with saves unacknowledged", "err", err)
	}
}

func (w *World) stopSidecar() {
	if w.side == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), sidecarStopBudget)
	defer cancel()
	if err := w.side.Stop(ctx); err != nil {
		w.log.Warn("stop ether", "err", err)
	}
}

// release undoes a New that failed half-way.
func (w *World) release() {
	for _, ln := range []net.Listener{w.gameLn, w.httpLn, w.rconLn} {
		if ln != nil {
			_ = ln.Close()
		}
	}
	if w.pool != nil {
		w.pool.Close()
	}
	w.stopSidecar()
}

// spawn runs fn on its own context and returns a function that cancels it
// and waits for fn to return.
func spawn(wg *sync.WaitGroup, log *slog.Logger, fn func(context.Context) error) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		if err := fn(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Error("component stopped", "err", err)
		}
	}()
	return func() { cancel(); <-done }
}
