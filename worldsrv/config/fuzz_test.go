package config

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// FuzzLoad: any command line and RS_NODE_ID either loads a valid, resolved
// config that shows no secret, or fails with ErrConfig (or help) — never a
// panic.
func FuzzLoad(f *testing.F) {
	for _, seed := range []struct{ args, node string }{
		{"", ""},
		{"--node-id 11 --seed 0xdead0002 --biome arctic", ""},
		{"--no-ether --ether spawn", "10"},
		{"--ether connect --cluster nats://u:p@h:1,h2:2", "12"},
		{"--game-listen 127.0.0.1:0 --http-listen 127.0.0.1:0", "255"},
		{"--seed 18446744073709551615 --biome 4 --max-players 1", "0"},
		{"--word-filter a,b,c --log-level warn --autoregister=false", "x"},
		{"--rcon-listen [::1]:25510 --db-pass", ""},
	} {
		f.Add(seed.args, seed.node)
	}
	f.Fuzz(func(t *testing.T, args, node string) {
		const secret = "zq-FUZZ-SECRET-qz"
		argv := append(strings.Fields(args), "--db-pass="+secret, "--rcon-password="+secret)
		c, err := Load(argv, envOf(map[string]string{"RS_NODE_ID": node}))
		if err != nil {
			if !errors.Is(err, ErrConfig) && !errors.Is(err, flag.ErrHelp) {
				t.Fatalf("Load(%q): error without ErrConfig: %v", argv, err)
			}
			return
		}
		if verr := c.Validate(); verr != nil {
			t.Fatalf("Load(%q) returned an invalid config: %v", argv, verr)
		}
		if c.Ether == "" || c.GameListen == "" || !c.SeedSet || !c.BiomeSet {
			t.Fatalf("Load(%q) returned an unresolved config: %s", argv, c)
		}
		if strings.Contains(c.String(), secret) {
			t.Fatalf("String shows a secret: %s", c)
		}
	})
}
