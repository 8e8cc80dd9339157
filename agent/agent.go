// Package agent is the Corrosion host agent: it supervises the game-server
// instances of one machine and speaks the Corrosion Wire Protocol v2 over
// NATS (heartbeats, host and instance commands, state and console events,
// RCON, the jailed file manager). agent/cmd/corrosion-agent is its main.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/files"
	"github.com/corrosion/corrosion/agent/supervise"
	"github.com/corrosion/corrosion/agent/telemetry"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/buildinfo"
	"github.com/corrosion/corrosion/internal/ctxtime"
)

// checkpointEvery is how often console offsets are saved for adoption.
const checkpointEvery = 2 * time.Second

// Agent is one corrosion-agent. Create it with New and call Run once.
type Agent struct {
	cfg       *config.Config       // immutable
	log       *slog.Logger         // immutable; component=agent
	baseLog   *slog.Logger         // immutable; the parts derive their own component from it
	build     buildinfo.Info       // immutable
	started   time.Time            // immutable
	collector *telemetry.Collector // immutable
	prober    *telemetry.Prober    // immutable
	pub       *publisher           // immutable
	metrics   *agentMetrics        // immutable; served on metrics_listen
	hbKick    chan struct{}        // asks the heartbeat loop to publish now
	tasks     *tasks               // immutable; install, update_check, steam_update, oxide_install
	peers     *peerIDs             // immutable; the ids other agents of the license report

	// provMu serialises the provisioning funcs (instance_create, _update,
	// _delete): one at a time, so two creates of one id cannot both win.
	// Lock order: provMu before mu.
	provMu sync.Mutex

	mu        sync.RWMutex
	instances []*instance          // guarded by mu; agent.toml's in config order, then the created ones
	byID      map[string]*instance // guarded by mu
	live      serving              // guarded by mu; set once the agent serves commands
}

// serving is what a created instance needs to be served: the connection
// and the context the agent serves commands under.
type serving struct {
	ctx context.Context
	nc  *nats.Conn
}

// instance is one configured instance with its parts.
type instance struct {
	// cfg is the instance's configuration: agent.toml's never changes, a
	// created instance's is replaced by instance_update (read it through
	// conf).
	cfg   atomic.Pointer[config.Instance]
	sup   *supervise.Supervisor // immutable; nil when unmanaged
	files *files.Manager        // immutable
	// rcon is the RCON client's handle, nil without [instance.rcon];
	// replaced with cfg (read it through rconHandle).
	rcon atomic.Pointer[rconHandle]

	console *countingSink // immutable; the supervisor's Sink, counts console lines
	metrics *agentMetrics // immutable; the agent's, records requests

	// prov is the template and values of an instance created through
	// instance_create, nil for agent.toml's; guarded by Agent.mu
	// (replaced by instance_update).
	prov *provisioned
	// subs are its cmd and files.cmd subscriptions; guarded by Agent.mu.
	subs []*nats.Subscription
	// life is held for reading by a power action (TryRLock: while
	// instance_delete holds it for writing, the action is busy), so no
	// start slips in while an instance is deleted.
	// Lock order: Agent.provMu, life, Agent.mu.
	life sync.RWMutex
	gone bool // guarded by life; instance_delete removed it
}

// New builds the agent from a validated config. It creates the
// supervisors but starts nothing.
func New(cfg *config.Config, logger *slog.Logger) (*Agent, error) {
	a := &Agent{
		cfg: cfg, log: logger.With("component", "agent"), baseLog: logger, build: buildinfo.Get(),
		started: time.Now(), byID: map[string]*instance{},
		collector: telemetry.NewCollector(logger),
		prober:    telemetry.NewProber(cfg.Probes, 3*time.Second),
		hbKick:    make(chan struct{}, 1),
		peers:     newPeerIDs(cfg.Agent.HeartbeatSeconds),
	}
	a.pub = &publisher{license: cfg.Agent.LicenseID, log: a.log}
	a.metrics = newAgentMetrics(a)
	a.tasks = newTasks(hostInstaller(&cfg.Agent, logger), a.provisioned, a.log)
	for i := range cfg.Instances {
		inst, err := a.newInstance(&cfg.Instances[i])
		if err != nil {
			return nil, err
		}
		a.instances = append(a.instances, inst)
		a.byID[inst.conf().ID] = inst
	}
	if err := a.loadProvisioned(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *Agent) newInstance(ic *config.Instance) (*instance, error) {
	inst := &instance{console: &countingSink{pub: a.pub}, metrics: a.metrics}
	inst.cfg.Store(ic)
	fm, err := files.New(ic.Root, ic.Files.Deny, files.Limits{}, a.baseLog)
	if err != nil {
		return nil, fmt.Errorf("instance %s: files: %w", ic.ID, err)
	}
	inst.files = fm
	if !ic.Managed() {
		inst.setRCON(ic, a.baseLog)
		return inst, nil
	}
	ac := a.cfg.Agent
	sup, err := supervise.New(supervise.Options{
		Instance: ic,
		License:  a.cfg.Agent.LicenseID,
		Policy: supervise.Policy{Restart: ic.Restart, BackoffInitial: ac.BackoffInitial.Duration,
			BackoffMax: ac.BackoffMax.Duration, HealthyAfter: ac.HealthyAfter.Duration,
			CrashLoopCount: ac.CrashLoopCount, CrashLoopWindow: ac.CrashLoopWindow.Duration},
		Console: supervise.ConsoleLimits{LineLimit: ac.ConsoleLineLimit, Window: ac.ConsoleWindow.Duration,
			RingLines: ac.ConsoleRingLines},
		Dir:    filepath.Join(ac.StateDir, "instances", ic.ID),
		Sink:   inst.console,
		Logger: a.baseLog,
		// As root without allow_root no game is started (adopted ones
		// keep running: stopping them is the operator's call).
		SpawnCheck: func() error { return ac.RootRefusal(os.Geteuid()) },
		// Only corrosion-panel dev's agent: its demo games die with it.
		DieWithParent: ac.GamesDieWithAgent,
		RCONStop:      inst.rconStop,
	})
	if err != nil {
		return nil, err
	}
	inst.sup = sup
	inst.setRCON(ic, a.baseLog)
	return inst, nil
}

// Run connects to NATS, adopts or autostarts the instances, serves
// commands and publishes heartbeats until ctx is cancelled. Then it
// publishes going_offline, detaches from the game processes (they keep
// running, unless the cause is ErrHostShutdown) and drains the connection.
//
// Start order: metrics listener (a bad metrics_listen fails before
// anything else happens) → adopt → connect → serve commands.
// Teardown order: stop serving commands → wait for the running tasks
// (cancelled with ctx) → on a host shutdown (ctx
// cancelled with cause ErrHostShutdown) stop every running game and wait →
// going_offline (500 ms budget) →
// close supervisors (save adoption state) → drain NATS → stop the metrics
// listener (last, deferred: scrapes still see the parts while they stop).
func (a *Agent) Run(ctx context.Context) error {
	stopMetrics, err := a.startMetrics()
	if err != nil {
		return err
	}
	defer stopMetrics()
	if err := a.cfg.Agent.RootRefusal(os.Geteuid()); err != nil {
		a.log.Warn("game servers will not be started", "err", err)
	}
	a.adoptAll()
	nc, err := a.connect(ctx)
	if err != nil {
		return err
	}
	a.pub.setConn(nc)
	a.mu.Lock()
	a.live = serving{ctx: ctx, nc: nc}
	a.mu.Unlock()
	subs, err := a.subscribe(ctx, nc)
	if err != nil {
		nc.Close()
		return err
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); a.autostart(ctx) }()
	go func() { defer wg.Done(); a.heartbeatLoop(ctx) }()
	go func() { defer wg.Done(); ctxtime.Every(ctx, checkpointEvery, a.checkpointAll) }()
	<-ctx.Done()
	wg.Wait()
	a.tasks.wait() // cancelled with ctx: steamcmd killed, downloads dropped, each ends with its event
	for _, s := range subs {
		_ = s.Unsubscribe()
	}
	a.unsubscribeInstances()
	if errors.Is(context.Cause(ctx), ErrHostShutdown) {
		a.stopAllForHostShutdown()
	}
	a.goingOffline(nc)
	for _, inst := range a.list() {
		if inst.sup != nil {
			inst.sup.Close()
		}
		if rc := inst.rcon.Load(); rc != nil {
			rc.close()
		}
	}
	if err := nc.Drain(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
		a.log.Warn("drain", "err", err)
	}
	return nil
}

// adoptAll re-adopts processes left by a previous agent.
func (a *Agent) adoptAll() {
	for _, inst := range a.list() {
		if inst.sup == nil {
			continue
		}
		res, err := inst.sup.Adopt()
		if err != nil {
			a.log.Warn("adopt", "instance", inst.conf().ID, "err", err)
			continue
		}
		if res == supervise.AdoptRunning {
			a.log.Info("adopted running instance", "instance", inst.conf().ID, "pid", inst.sup.Status().PID)
		}
	}
}

// autostart starts autostart instances in dependency order, skipping those
// already running (adopted) and those an operator stopped.
func (a *Agent) autostart(ctx context.Context) {
	order, err := a.cfg.StartOrder()
	if err != nil {
		a.log.Error("autostart order", "err", err)
		return
	}
	for _, ic := range order {
		inst := a.lookup(ic.ID)
		if inst == nil || !ic.Autostart || inst.sup == nil || ctx.Err() != nil {
			continue
		}
		st := inst.sup.Status()
		if st.ManualStop || st.State != wire.StateStopped {
			continue
		}
		if err := a.startWithDeps(ctx, inst, false); err != nil {
			a.log.Warn("autostart", "instance", ic.ID, "err", err)
		}
	}
}

// checkpointAll saves every supervisor's console offsets for adoption.
func (a *Agent) checkpointAll(context.Context) {
	for _, inst := range a.list() {
		if inst.sup != nil {
			inst.sup.Checkpoint()
		}
	}
}

// jitter returns d ± 20%.
func jitter(d time.Duration) time.Duration {
	f := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * f)
}
