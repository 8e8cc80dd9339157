package dev

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// License is the demo fleet's license id.
const License = "demo"

// world is one demo world and its sidecar: their ids and ports.
type world struct {
	node      int
	etherPort int
	gamePort  int
	httpPort  int
	rconPort  int
}

func (w world) ether() string { return fmt.Sprintf("ether%d", w.node) }
func (w world) id() string    { return fmt.Sprintf("world%d", w.node) }

// number is the world number W = N - 9 (DESIGN.md section 3).
func (w world) number() int { return w.node - 9 }

// ClientURL is the browser client of the world.
func (w world) ClientURL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/client?world=%d", w.httpPort, w.number())
}

// demoNodes are the demo fleet's world node ids.
var demoNodes = []int{10, 11}

// planWorlds gives each demo world its ports: DESIGN.md's (PortsDesign)
// or free ones (PortsFree).
func planWorlds(mode PortMode) ([]world, error) {
	var out []world
	for _, n := range demoNodes {
		w := world{node: n, etherPort: 5000 + n, gamePort: 43584 + n, httpPort: 8070 + n, rconPort: 25500 + n}
		if mode == PortsFree {
			ports, err := freePorts(4)
			if err != nil {
				return nil, err
			}
			w.etherPort, w.gamePort, w.httpPort, w.rconPort = ports[0], ports[1], ports[2], ports[3]
		}
		out = append(out, w)
	}
	return out, nil
}

// freePorts returns n distinct free ports on 127.0.0.1 (held open until
// all are chosen, so they differ).
func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		lns = append(lns, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// gameDB is the database settings of the worlds and their sidecars.
type gameDB struct {
	host, user, pass, name string
	port                   int
}

func (d gameDB) env() map[string]string {
	return map[string]string{"RS_DB_HOST": d.host, "RS_DB_PORT": strconv.Itoa(d.port), "RS_DB_NAME": d.name,
		"RS_DB_USER": d.user, "RS_DB_PASS": d.pass}
}

// fleetPlan is everything the agent's config is generated from.
type fleetPlan struct {
	dir       string // the dev run's temporary directory
	natsURL   string
	panelPort int
	etherBin  string
	worldBin  string
	db        gameDB
	worlds    []world
	rconPass  string
}

// agentConfig mirrors the agent's TOML (DESIGN.md section 4).
type agentConfig struct {
	Agent    agentTable      `toml:"agent"`
	Probe    []probeTable    `toml:"probe"`
	Instance []instanceTable `toml:"instance"`
}

type agentTable struct {
	LicenseID        string `toml:"license_id"`
	NATSURL          string `toml:"nats_url"`
	HeartbeatSeconds int    `toml:"heartbeat_seconds"`
	StateDir         string `toml:"state_dir"`
	// AllowRoot is set when make run runs as root: the agent refuses to
	// start game servers as root otherwise.
	AllowRoot bool `toml:"allow_root,omitempty"`
	// GamesDieWithAgent: the demo games die with the agent, which dies
	// with dev, so nothing outlives a killed dev.
	GamesDieWithAgent bool `toml:"games_die_with_agent"`
}

type probeTable struct {
	Name string `toml:"name"`
	Host string `toml:"host"`
	Port int    `toml:"port"`
}

type instanceTable struct {
	ID                 string            `toml:"id"`
	Game               string            `toml:"game"`
	Label              string            `toml:"label"`
	Root               string            `toml:"root"`
	Exec               string            `toml:"exec"`
	Args               []string          `toml:"args"`
	Env                map[string]string `toml:"env"`
	StopTimeoutSeconds int               `toml:"stop_timeout_seconds"`
	ReadyPattern       string            `toml:"ready_pattern"`
	Restart            string            `toml:"restart"`
	Autostart          bool              `toml:"autostart"`
	DependsOn          []string          `toml:"depends_on,omitempty"`
	RCON               *rconTable        `toml:"rcon,omitempty"`
}

type rconTable struct {
	Kind     string `toml:"kind"`
	Port     int    `toml:"port"`
	Password string `toml:"password"`
}

// heartbeatSeconds is the demo agent's heartbeat: quick, so the fleet
// page is live at once.
const heartbeatSeconds = 5

// writeAgentConfig writes the agent's config and the instances' roots
// under p.dir and returns the config's path.
func writeAgentConfig(p fleetPlan) (string, error) {
	cfg := agentConfig{
		Agent: agentTable{LicenseID: License, NATSURL: p.natsURL, HeartbeatSeconds: heartbeatSeconds,
			StateDir: filepath.Join(p.dir, "agent-state"), AllowRoot: os.Geteuid() == 0,
			GamesDieWithAgent: true},
		Probe: []probeTable{{Name: "panel", Host: "127.0.0.1", Port: p.panelPort}},
	}
	for _, w := range p.worlds {
		cfg.Instance = append(cfg.Instance, p.etherInstance(w), p.worldInstance(w))
	}
	for _, inst := range cfg.Instance {
		if err := os.MkdirAll(inst.Root, 0o755); err != nil {
			return "", fmt.Errorf("instance root: %w", err)
		}
	}
	var b strings.Builder
	b.WriteString("# Generated by corrosion-panel dev: the demo fleet (two worlds with their sidecars).\n")
	if err := toml.NewEncoder(&b).Encode(cfg); err != nil {
		return "", fmt.Errorf("encode agent config: %w", err)
	}
	path := filepath.Join(p.dir, "agent.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return "", fmt.Errorf("write agent config: %w", err)
	}
	return path, nil
}

func (p fleetPlan) etherInstance(w world) instanceTable {
	env := p.db.env()
	env["RS_NODE_ID"] = strconv.Itoa(w.node)
	env["RS_ETHER_PORT"] = strconv.Itoa(w.etherPort)
	env["RS_CLUSTER_HOSTS"] = p.natsURL
	return instanceTable{ID: w.ether(), Game: "ether", Label: fmt.Sprintf("Social sidecar of world %d", w.number()),
		Root: filepath.Join(p.dir, w.ether()), Exec: p.etherBin, Args: []string{"run"}, Env: env,
		StopTimeoutSeconds: 15, ReadyPattern: "ether ready", Restart: "on-crash", Autostart: true}
}

func (p fleetPlan) worldInstance(w world) instanceTable {
	addr := func(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
	args := []string{"--node-id", strconv.Itoa(w.node), "--ether", "connect", "--ether-port", strconv.Itoa(w.etherPort),
		"--game-listen", addr(w.gamePort), "--http-listen", addr(w.httpPort), "--rcon-listen", addr(w.rconPort)}
	// Secrets go in the environment, never on the command line, which
	// every local user can read (ps).
	env := p.db.env()
	env["RS_RCON_PASSWORD"] = p.rconPass
	return instanceTable{ID: w.id(), Game: "worldsrv", Label: fmt.Sprintf("World %d", w.number()),
		Root: filepath.Join(p.dir, w.id()), Exec: p.worldBin, Args: args, Env: env,
		StopTimeoutSeconds: 20, ReadyPattern: "world ready", Restart: "on-crash", Autostart: true,
		DependsOn: []string{w.ether()},
		RCON:      &rconTable{Kind: "source", Port: w.rconPort, Password: p.rconPass}}
}
