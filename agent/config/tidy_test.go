package config

import (
	"log/slog"
	"reflect"
	"testing"
)

func TestInferRCONKind(t *testing.T) {
	cases := map[string]string{
		"rust": RCONWebRCON, "conan": RCONSource, "soulmask": RCONSource, "worldsrv": RCONSource,
		"ether": "", "generic": "", "": "", "Rust": "",
	}
	for game, want := range cases {
		if got := InferRCONKind(game); got != want {
			t.Errorf("InferRCONKind(%q) = %q, want %q", game, got, want)
		}
	}
}

func TestParse_RCONKindFilledFromGame(t *testing.T) {
	f := newFixture(t)
	c := validConfig(t, f)
	if got := c.Instances[1].RCON.Kind; got != RCONSource {
		t.Fatalf("worldsrv rcon kind = %q, want %q filled in by the defaults", got, RCONSource)
	}
}

func TestParseLogLevel(t *testing.T) {
	cases := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}
	for s, want := range cases {
		got, err := ParseLogLevel(s)
		if err != nil || got != want {
			t.Errorf("ParseLogLevel(%q) = %v, %v; want %v", s, got, err, want)
		}
		if a := (Agent{LogLevel: s}); a.SlogLevel() != want {
			t.Errorf("SlogLevel(%q) = %v", s, a.SlogLevel())
		}
	}
	for _, s := range []string{"", "INFO", "verbose", "info+2", "warning"} {
		if _, err := ParseLogLevel(s); err == nil {
			t.Errorf("ParseLogLevel(%q) accepted", s)
		}
	}
}

// TestValidate_DoesNotMutate: Validate only reads. Two configs built the
// same way stay equal after one of them is validated, whether it is valid
// or full of problems (an empty rcon kind, empty defaults, bad URLs).
func TestValidate_DoesNotMutate(t *testing.T) {
	f := newFixture(t)
	build := []struct {
		name string
		mk   func() *Config
	}{
		{"parsed", func() *Config { return validConfig(t, f) }},
		{"hand built, no defaults", func() *Config {
			return &Config{Instances: []Instance{
				{ID: "w", Game: "generic", Exec: f.exe, Root: f.root, RCON: &RCON{Port: 1, Password: "x"}},
				{ID: "r", Game: "rust", Root: f.root, RCON: &RCON{Port: 2}},
			}}
		}},
		{"broken", func() *Config {
			c := validConfig(t, f)
			c.Agent.NATSURL = "nats://user:12/x@h:4222, nats://"
			c.Agent.LogLevel = "LOUD"
			c.Instances[1].RCON.Kind = ""
			c.Instances[0].DependsOn = []string{"world10"}
			return c
		}},
	}
	for _, b := range build {
		t.Run(b.name, func(t *testing.T) {
			c, want := b.mk(), b.mk()
			_ = c.Validate()
			if !reflect.DeepEqual(c, want) {
				t.Fatalf("Validate changed the config:\n got %+v\nwant %+v", c, want)
			}
		})
	}
}
