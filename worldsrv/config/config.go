package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// Port bases: each of a world's ports is its base + the node id (DESIGN.md
// section 3).
const (
	GamePortBase  = 43584 // world game port (TCP): node 10 → 43594
	HTTPPortBase  = 8070  // world HTTP: node 10 → 8080
	EtherPortBase = 5000  // ether sidecar link, 127.0.0.1 only: node 10 → 5010
	RCONPortBase  = 25500 // Source RCON: node 10 → 25510
)

// Listen hosts of the derived addresses. Game clients and browsers come
// from anywhere, so the game and HTTP ports listen on every IPv4 address;
// the admin console listens on loopback unless --rcon-listen says otherwise.
const (
	PublicHost = "0.0.0.0"
	AdminHost  = "127.0.0.1"
)

// Defaults that are not derived from the node id.
const (
	DefaultNodeID        uint8 = 10
	DefaultMaxPlayers          = 2000
	DefaultMaxConnsPerIP       = 10
	DefaultCluster             = "nats://127.0.0.1:4222"
	linkTokenBytes             = 16 // a generated link token: 16 random bytes, hex
	maxLinkToken               = 4095 - 1
)

// EtherMode is how the world gets its ether sidecar.
type EtherMode string

// The ether modes (--ether).
const (
	EtherSpawn   EtherMode = "spawn"   // run `ether migrate`, then spawn and supervise `ether run`
	EtherConnect EtherMode = "connect" // the sidecar is someone else's (the agent's); just connect
	EtherOff     EtherMode = "off"     // no sidecar, no social features (--no-ether)
)

// Valid reports whether m is one of the three modes.
func (m EtherMode) Valid() bool { return m == EtherSpawn || m == EtherConnect || m == EtherOff }

// Config is the whole configuration of one world process. Fields left at
// their zero value ("unset") are filled by Resolved; Load returns a
// resolved, validated Config.
type Config struct {
	NodeID    uint8     // RS_NODE_ID, --node-id: 1–255 (default 10); world number = node id − 9
	EtherPort int       // RS_ETHER_PORT, --ether-port: sidecar link on 127.0.0.1 (0: 5000 + node id)
	Ether     EtherMode // --ether: spawn, connect or off ("": spawn, or off with --no-ether)
	NoEther   bool      // --no-ether: the seed's switch, the same as --ether off
	EtherBin  string    // --ether-bin: the ether executable to spawn ("": next to worldsrv, else PATH)
	LinkToken string    // RS_LINK_TOKEN, --link-token, --link-token-file [RS_LINK_TOKEN_FILE]: sidecar link token ("" when spawning: random). Secret

	DB      flagval.DB // RS_DB_*, --db-*: the seed's database settings (default flagval.DefaultDB). Password secret
	Cluster []string   // RS_CLUSTER_HOSTS, --cluster: NATS URLs for the sidecar (default nats://127.0.0.1:4222). Credentials secret

	RCONPassword string // RS_RCON_PASSWORD, --rcon-password, --rcon-password-file [RS_RCON_PASSWORD_FILE]: "" turns RCON (Source and WebRCON) off. Secret
	Autoregister bool   // --autoregister: a new name registers on first login (default true)

	Seed     uint64        // --seed: terrain seed, decimal or 0x hex (default terrain.DefaultSeed(node id))
	SeedSet  bool          // Seed was given; Resolved sets it
	Biome    terrain.Biome // --biome: name or 0–4 (default terrain.BiomeFromSeed(seed))
	BiomeSet bool          // Biome was given; Resolved sets it

	MaxPlayers    int    // --max-players: world full beyond this (default 2000)
	MaxConnsPerIP int    // --max-conns-per-ip: open connections from one address (default 10)
	WordFilter    string // --word-filter: a file (one word a line) or a comma list; "": no filter

	GameListen string // --game-listen: game port (default 0.0.0.0:43584+N)
	HTTPListen string // --http-listen: HTTP port (default 0.0.0.0:8070+N)
	RCONListen string // --rcon-listen: Source RCON (default 127.0.0.1:25500+N)

	LogLevel  slog.Level // RS_LOG_LEVEL, --log-level: debug, info, warn, error (default info)
	LogStdout bool       // RS_LOG_STDOUT, --log-stdout: log to stdout (also when the agent runs the world: internal/logdest)

	// PublicURL is RS_PUBLIC_URL, --public-url: where players open this
	// world's browser client, reported in /status and to the sidecar
	// (default: http://<the HTTP address>/client?world=W, an unspecified
	// host replaced by this machine's name).
	PublicURL  string
	LicenseID  string // CORROSION_LICENSE_ID, --license-id: the license whose agent runs this world (set by the agent); "": not run by one
	InstanceID string // CORROSION_INSTANCE_ID, --instance-id: this world's instance id on that agent (set by the agent)
}

// ErrConfig marks an invalid configuration; the message names the flag.
var ErrConfig = errors.New("invalid configuration")

// Default is the configuration with nothing set.
func Default() Config {
	return Config{
		NodeID: DefaultNodeID, DB: flagval.DefaultDB(), Cluster: []string{DefaultCluster},
		Autoregister: true, MaxPlayers: DefaultMaxPlayers, MaxConnsPerIP: DefaultMaxConnsPerIP,
		LogLevel: slog.LevelInfo,
	}
}

// World is the world number shown to players: node id − 9 (node 10 is
// world 1).
func (c *Config) World() int { return int(c.NodeID) - 9 }

// Resolved is c with every unset field filled in, the one place that does
// so: the ether mode, the ports and listen addresses derived from the node
// id, the seed and biome, and a random link token when spawning without
// one. Fields already set are kept, so resolving twice changes nothing. c
// itself is not changed.
func (c Config) Resolved() Config {
	if c.Ether == "" {
		c.Ether = EtherSpawn
		if c.NoEther {
			c.Ether = EtherOff
		}
	}
	if c.EtherPort == 0 {
		c.EtherPort = EtherPortBase + int(c.NodeID)
	}
	if c.GameListen == "" {
		c.GameListen = hostPort(PublicHost, GamePortBase+int(c.NodeID))
	}
	if c.HTTPListen == "" {
		c.HTTPListen = hostPort(PublicHost, HTTPPortBase+int(c.NodeID))
	}
	if c.RCONListen == "" {
		c.RCONListen = hostPort(AdminHost, RCONPortBase+int(c.NodeID))
	}
	if c.PublicURL == "" {
		c.PublicURL = defaultPublicURL(c.HTTPListen, c.World())
	}
	if !c.SeedSet {
		c.Seed, c.SeedSet = terrain.DefaultSeed(c.NodeID), true
	}
	if !c.BiomeSet {
		c.Biome, c.BiomeSet = terrain.BiomeFromSeed(c.Seed), true
	}
	if c.Ether == EtherSpawn && c.LinkToken == "" {
		c.LinkToken = newToken()
	}
	c.Cluster = append([]string(nil), c.Cluster...) // never share the caller's slice
	return c
}

// newToken is a random link token: 16 bytes from crypto/rand, in hex.
func newToken() string {
	b := make([]byte, linkTokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}

func hostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

// defaultPublicURL is the browser client at the HTTP address listen; an
// unspecified host (0.0.0.0, ::, none) is this machine's name.
func defaultPublicURL(listen string, world int) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
		if name, err := os.Hostname(); err == nil && name != "" {
			host = name
		}
	}
	u := url.URL{Scheme: "http", Host: net.JoinHostPort(host, port), Path: "/client", RawQuery: "world=" + strconv.Itoa(world)}
	return u.String()
}

// WorldInfo is what the world tells its sidecar about itself.
func (c *Config) WorldInfo() proto.WorldInfo {
	return proto.WorldInfo{License: []byte(c.LicenseID), Instance: []byte(c.InstanceID), PublicURL: []byte(c.PublicURL)}
}

// EtherAddr is the sidecar link address: always loopback.
func (c *Config) EtherAddr() string { return hostPort("127.0.0.1", c.etherPort()) }

func (c *Config) etherPort() int {
	if c.EtherPort != 0 {
		return c.EtherPort
	}
	return EtherPortBase + int(c.NodeID)
}

// RCONEnabled reports whether the admin console is on (a password is set).
func (c *Config) RCONEnabled() bool { return c.RCONPassword != "" }
