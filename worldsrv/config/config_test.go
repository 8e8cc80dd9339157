package config

import (
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

func noEnv(string) string { return "" }

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func mustLoad(t *testing.T, args []string, env map[string]string) Config {
	t.Helper()
	c, err := Load(args, envOf(env))
	if err != nil {
		t.Fatalf("Load(%q): %v", args, err)
	}
	return c
}

func TestLoad_Defaults(t *testing.T) {
	c := mustLoad(t, nil, nil)
	want := Config{
		NodeID: 10, EtherPort: 5010, Ether: EtherSpawn, LinkToken: c.LinkToken,
		DB:      flagval.DB{Host: "localhost", Port: 5432, Name: "postgres", User: "postgres", Pass: "password"},
		Cluster: []string{"nats://127.0.0.1:4222"}, Autoregister: true,
		Seed: terrain.DefaultSeed(10), SeedSet: true, Biome: terrain.BiomeFromSeed(terrain.DefaultSeed(10)), BiomeSet: true,
		MaxPlayers: 2000, MaxConnsPerIP: 10,
		GameListen: "0.0.0.0:43594", HTTPListen: "0.0.0.0:8080", RCONListen: "127.0.0.1:25510",
		LogLevel: slog.LevelInfo, PublicURL: "http://" + hostname(t) + ":8080/client?world=1",
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults:\n got %#v\nwant %#v", c, want)
	}
	if len(c.LinkToken) != 2*linkTokenBytes {
		t.Fatalf("spawning without a token: generated %q, want %d hex chars", c.LinkToken, 2*linkTokenBytes)
	}
	if c.World() != 1 || c.RCONEnabled() || c.EtherAddr() != "127.0.0.1:5010" {
		t.Fatalf("world %d, rcon %v, ether addr %s", c.World(), c.RCONEnabled(), c.EtherAddr())
	}
}

func TestLoad_PortsFromNodeID(t *testing.T) {
	tests := []struct {
		node                    string
		game, http, rcon, ether string
		ep                      int
		world                   int
	}{
		{"10", "0.0.0.0:43594", "0.0.0.0:8080", "127.0.0.1:25510", "127.0.0.1:5010", 5010, 1},
		{"11", "0.0.0.0:43595", "0.0.0.0:8081", "127.0.0.1:25511", "127.0.0.1:5011", 5011, 2},
		{"1", "0.0.0.0:43585", "0.0.0.0:8071", "127.0.0.1:25501", "127.0.0.1:5001", 5001, -8},
		{"255", "0.0.0.0:43839", "0.0.0.0:8325", "127.0.0.1:25755", "127.0.0.1:5255", 5255, 246},
	}
	for _, tt := range tests {
		t.Run("node "+tt.node, func(t *testing.T) {
			c := mustLoad(t, []string{"--node-id", tt.node}, nil)
			if c.GameListen != tt.game || c.HTTPListen != tt.http || c.RCONListen != tt.rcon ||
				c.EtherAddr() != tt.ether || c.EtherPort != tt.ep || c.World() != tt.world {
				t.Fatalf("got game %s http %s rcon %s ether %s (%d) world %d", c.GameListen, c.HTTPListen, c.RCONListen, c.EtherAddr(), c.EtherPort, c.World())
			}
			id := c.NodeID
			if c.Seed != terrain.DefaultSeed(id) || c.Biome != terrain.BiomeFromSeed(c.Seed) {
				t.Fatalf("seed %#x biome %v: not the node's defaults", c.Seed, c.Biome)
			}
		})
	}
}

func TestLoad_Flags(t *testing.T) {
	dir := t.TempDir()
	words := filepath.Join(dir, "words.txt")
	if err := os.WriteFile(words, []byte("darn\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		check func(c Config) bool
	}{
		{"ether port", []string{"--ether-port", "6000"}, func(c Config) bool { return c.EtherPort == 6000 && c.EtherAddr() == "127.0.0.1:6000" }},
		{"ether connect", []string{"--ether", "connect"}, func(c Config) bool { return c.Ether == EtherConnect && c.LinkToken == "" }},
		{"ether off", []string{"--ether=off"}, func(c Config) bool { return c.Ether == EtherOff && c.LinkToken == "" }},
		{"ether spawn upper case", []string{"--ether", "SPAWN"}, func(c Config) bool { return c.Ether == EtherSpawn }},
		{"no-ether", []string{"--no-ether"}, func(c Config) bool { return c.Ether == EtherOff && c.NoEther }},
		{"no-ether with ether off", []string{"--no-ether", "--ether", "off"}, func(c Config) bool { return c.Ether == EtherOff }},
		{"no-ether=false", []string{"--no-ether=false"}, func(c Config) bool { return c.Ether == EtherSpawn }},
		{"ether-bin", []string{"--ether-bin", "/opt/ether"}, func(c Config) bool { return c.EtherBin == "/opt/ether" }},
		{"link token kept", []string{"--link-token", "tok"}, func(c Config) bool { return c.LinkToken == "tok" }},
		{"db host", []string{"--db-host", "db.example"}, func(c Config) bool { return c.DB.Host == "db.example" }},
		{"db port", []string{"--db-port", "6543"}, func(c Config) bool { return c.DB.Port == 6543 }},
		{"db name", []string{"--db-name", "world"}, func(c Config) bool { return c.DB.Name == "world" }},
		{"db user", []string{"--db-user", "w"}, func(c Config) bool { return c.DB.User == "w" }},
		{"db pass", []string{"--db-pass", "s3cret"}, func(c Config) bool { return c.DB.Pass == "s3cret" }},
		{"db pass empty", []string{"--db-pass", ""}, func(c Config) bool { return c.DB.Pass == "" }},
		{"cluster list", []string{"--cluster", "nats://a:4222, b:4223,"}, func(c Config) bool { return reflect.DeepEqual(c.Cluster, []string{"nats://a:4222", "b:4223"}) }},
		{"cluster empty with ether off", []string{"--cluster", "", "--no-ether"}, func(c Config) bool { return len(c.Cluster) == 0 }},
		{"rcon password", []string{"--rcon-password", "pw"}, func(c Config) bool { return c.RCONPassword == "pw" && c.RCONEnabled() }},
		{"autoregister off", []string{"--autoregister=false"}, func(c Config) bool { return !c.Autoregister }},
		{"autoregister bare", []string{"--autoregister"}, func(c Config) bool { return c.Autoregister }},
		{"seed decimal", []string{"--seed", "3735552002"}, func(c Config) bool { return c.Seed == 3735552002 && c.Biome == terrain.BiomeFromSeed(3735552002) }},
		{"seed hex", []string{"--seed", "0xDEAD0002"}, func(c Config) bool { return c.Seed == 0xdead0002 && c.Biome == terrain.Desert }},
		{"seed zero", []string{"--seed", "0"}, func(c Config) bool { return c.Seed == 0 && c.SeedSet }},
		{"seed max", []string{"--seed", "0xffffffffffffffff"}, func(c Config) bool { return c.Seed == ^uint64(0) }},
		{"biome name", []string{"--biome", "desert"}, func(c Config) bool { return c.Biome == terrain.Desert }},
		{"biome number", []string{"--biome", "4"}, func(c Config) bool { return c.Biome == terrain.Tropic }},
		{"biome with seed", []string{"--seed", "5", "--biome", "marshland"}, func(c Config) bool { return c.Seed == 5 && c.Biome == terrain.Marshland }},
		{"max players", []string{"--max-players", "50"}, func(c Config) bool { return c.MaxPlayers == 50 }},
		{"max conns per ip", []string{"--max-conns-per-ip", "3"}, func(c Config) bool { return c.MaxConnsPerIP == 3 }},
		{"word filter list", []string{"--word-filter", "a,b"}, func(c Config) bool { return c.WordFilter == "a,b" }},
		{"word filter file", []string{"--word-filter", words}, func(c Config) bool { return c.WordFilter == words }},
		{"game listen", []string{"--game-listen", "127.0.0.1:0"}, func(c Config) bool { return c.GameListen == "127.0.0.1:0" }},
		{"http listen", []string{"--http-listen", "127.0.0.1:9000"}, func(c Config) bool { return c.HTTPListen == "127.0.0.1:9000" }},
		{"rcon listen", []string{"--rcon-listen", "0.0.0.0:27015"}, func(c Config) bool { return c.RCONListen == "0.0.0.0:27015" }},
		{"all three on port 0", []string{"--game-listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--rcon-listen", "127.0.0.1:0"}, func(c Config) bool { return c.RCONListen == "127.0.0.1:0" }},
		{"log level", []string{"--log-level", "debug"}, func(c Config) bool { return c.LogLevel == slog.LevelDebug }},
		{"single dash", []string{"-node-id", "12"}, func(c Config) bool { return c.NodeID == 12 && c.HTTPListen == "0.0.0.0:8082" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, tt.args, nil)
			if !tt.check(c) {
				t.Fatalf("Load(%q) = %s", tt.args, c)
			}
		})
	}
}

func TestLoad_Environment(t *testing.T) {
	env := map[string]string{
		"RS_NODE_ID": "11", "RS_ETHER_PORT": "6011", "RS_DB_HOST": "pg", "RS_DB_PORT": "5433",
		"RS_DB_NAME": "rs", "RS_DB_USER": "u", "RS_DB_PASS": "p", "RS_CLUSTER_HOSTS": "nats://n1:4222,nats://n2:4222",
		"RS_LINK_TOKEN": "t", "RS_LOG_LEVEL": "warn",
	}
	c := mustLoad(t, nil, env)
	if c.NodeID != 11 || c.EtherPort != 6011 || c.DB.Host != "pg" || c.DB.Port != 5433 || c.DB.Name != "rs" ||
		c.DB.User != "u" || c.DB.Pass != "p" || len(c.Cluster) != 2 || c.LinkToken != "t" || c.LogLevel != slog.LevelWarn {
		t.Fatalf("from the environment: %s", c)
	}
	if c.HTTPListen != "0.0.0.0:8081" {
		t.Fatalf("ports derive from RS_NODE_ID: %s", c.HTTPListen)
	}
	t.Run("flags win", func(t *testing.T) {
		c := mustLoad(t, []string{"--node-id", "12", "--db-host", "other", "--cluster", "nats://x:1"}, env)
		if c.NodeID != 12 || c.DB.Host != "other" || !reflect.DeepEqual(c.Cluster, []string{"nats://x:1"}) || c.DB.User != "u" {
			t.Fatalf("flags over env: %s", c)
		}
	})
	t.Run("bad variable named", func(t *testing.T) {
		_, err := Load(nil, envOf(map[string]string{"RS_DB_PORT": "lots"}))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "RS_DB_PORT") {
			t.Fatalf("err = %v, want ErrConfig naming RS_DB_PORT", err)
		}
	})
}

func TestLoad_Errors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // every one must appear in the error
	}{
		{"node id zero", []string{"--node-id", "0"}, []string{"node-id"}},
		{"node id too big", []string{"--node-id", "256"}, []string{"node-id"}},
		{"node id word", []string{"--node-id", "ten"}, []string{"node-id"}},
		{"ether port too big", []string{"--ether-port", "70000"}, []string{"ether-port"}},
		{"ether mode unknown", []string{"--ether", "maybe"}, []string{"-ether"}},
		{"no-ether conflicts with spawn", []string{"--no-ether", "--ether", "spawn"}, []string{"--no-ether", "--ether spawn"}},
		{"no-ether conflicts with connect", []string{"--ether", "connect", "--no-ether"}, []string{"--no-ether", "--ether connect"}},
		{"no-ether not a bool", []string{"--no-ether=maybe"}, []string{"no-ether"}},
		{"db host empty", []string{"--db-host", ""}, []string{"--db-host"}},
		{"db port zero", []string{"--db-port", "0"}, []string{"--db-port"}},
		{"db port word", []string{"--db-port", "x"}, []string{"db-port"}},
		{"db name empty", []string{"--db-name", ""}, []string{"--db-name"}},
		{"db user empty", []string{"--db-user", ""}, []string{"--db-user"}},
		{"cluster empty when spawning", []string{"--cluster", ""}, []string{"--cluster"}},
		{"cluster bad url", []string{"--cluster", "nats://user:hunter2@/x"}, []string{"--cluster"}},
		{"cluster not a NATS scheme", []string{"--cluster", "http://10.0.0.1:4222"}, []string{"--cluster"}},
		{"autoregister not a bool", []string{"--autoregister=perhaps"}, []string{"autoregister"}},
		{"seed negative", []string{"--seed", "-1"}, []string{"seed"}},
		{"seed too big", []string{"--seed", "18446744073709551616"}, []string{"seed"}},
		{"seed bad hex", []string{"--seed", "0xzz"}, []string{"seed"}},
		{"seed empty hex", []string{"--seed", "0x"}, []string{"seed"}},
		{"biome unknown", []string{"--biome", "lava"}, []string{"biome"}},
		{"biome out of range", []string{"--biome", "5"}, []string{"biome"}},
		{"max players zero", []string{"--max-players", "0"}, []string{"--max-players"}},
		{"max players too many", []string{"--max-players", "70000"}, []string{"--max-players"}},
		{"max conns zero", []string{"--max-conns-per-ip", "0"}, []string{"--max-conns-per-ip"}},
		{"word filter missing file", []string{"--word-filter", "/nonexistent/words.txt"}, []string{"--word-filter"}},
		{"word filter directory", []string{"--word-filter", "/"}, []string{"--word-filter"}},
		{"game listen no port", []string{"--game-listen", "localhost"}, []string{"--game-listen"}},
		{"http listen bad port", []string{"--http-listen", "127.0.0.1:http"}, []string{"--http-listen"}},
		{"rcon listen port too big", []string{"--rcon-listen", "127.0.0.1:99999"}, []string{"--rcon-listen"}},
		{"same address twice", []string{"--game-listen", "127.0.0.1:9000", "--http-listen", "127.0.0.1:9000"}, []string{"--http-listen", "--game-listen"}},
		{"derived address taken", []string{"--rcon-listen", "0.0.0.0:8080"}, []string{"--http-listen", "--rcon-listen"}},
		{"log level unknown", []string{"--log-level", "loud"}, []string{"log-level"}},
		{"unknown flag", []string{"--colour", "red"}, []string{"colour"}},
		{"stray argument", []string{"run"}, []string{`"run"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.args, noEnv)
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("Load(%q) = %v, want ErrConfig", tt.args, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not name %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("error shows a password: %v", err)
			}
		})
	}
}

func TestLoad_Help(t *testing.T) {
	if _, err := Load([]string{"-h"}, noEnv); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v, want flag.ErrHelp", err)
	}
}

func hostname(t *testing.T) string {
	t.Helper()
	name, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// TestLoad_PublicURLAndAgent: the public URL defaults to the HTTP address
// (its host when given), and is refused unless http(s); the agent's ids
// are taken from the environment and checked.
func TestLoad_PublicURLAndAgent(t *testing.T) {
	c := mustLoad(t, []string{"--http-listen", "10.0.0.5:9000", "--node-id", "12"}, nil)
	if c.PublicURL != "http://10.0.0.5:9000/client?world=3" {
		t.Fatalf("public url %q", c.PublicURL)
	}
	c = mustLoad(t, nil, map[string]string{"RS_PUBLIC_URL": "https://play.example/w1", "CORROSION_LICENSE_ID": "demo", "CORROSION_INSTANCE_ID": "world10"})
	if wi := c.WorldInfo(); string(wi.PublicURL) != "https://play.example/w1" || string(wi.License) != "demo" || string(wi.Instance) != "world10" {
		t.Fatalf("world info %+v", wi)
	}
	for name, env := range map[string]map[string]string{
		"javascript url": {"RS_PUBLIC_URL": "javascript:alert(1)"},
		"relative url":   {"RS_PUBLIC_URL": "/client"},
		"instance alone": {"CORROSION_INSTANCE_ID": "world10"},
	} {
		if _, err := Load(nil, func(k string) string { return env[k] }); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
