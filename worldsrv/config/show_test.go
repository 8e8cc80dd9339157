package config

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestConfig_SecretsNeverShown(t *testing.T) {
	c := mustLoad(t, []string{
		"--db-pass", "dbSECRET", "--rcon-password", "rconSECRET", "--link-token", "linkSECRET",
		"--cluster", "nats://natsuser:natsSECRET@n1:4222,nats://tokenSECRET@n2:4222",
	}, nil)
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "cfg", c)
	var asJSON bytes.Buffer
	slog.New(slog.NewJSONHandler(&asJSON, nil)).Info("config", "cfg", c)
	for name, out := range map[string]string{"String": c.String(), "text log": logged.String(), "JSON log": asJSON.String()} {
		if strings.Contains(out, "SECRET") {
			t.Errorf("%s shows a secret: %s", name, out)
		}
		if !strings.Contains(out, "n1:4222") || !strings.Contains(out, "db-pass") {
			t.Errorf("%s hides more than the secrets: %s", name, out)
		}
	}
	if !strings.Contains(c.DB.URL(), "dbSECRET") {
		t.Fatalf("DSN must carry the password: %s", c.DB.URL())
	}
}

func TestConfig_ResolvedKeepsWhatIsSet(t *testing.T) {
	in := Config{NodeID: 11, Cluster: []string{"nats://a:1"}, LinkToken: "given", GameListen: "127.0.0.1:1", SeedSet: true, Seed: 7}
	before := in
	before.Cluster = append([]string(nil), in.Cluster...)
	out := in.Resolved()
	if !reflect.DeepEqual(in, before) {
		t.Fatalf("Resolved changed its receiver: %#v", in)
	}
	if out.LinkToken != "given" || out.GameListen != "127.0.0.1:1" || out.Seed != 7 || out.HTTPListen != "0.0.0.0:8081" {
		t.Fatalf("resolved: %s", out)
	}
	out.Cluster[0] = "changed"
	if in.Cluster[0] != "nats://a:1" {
		t.Fatal("Resolved shares the caller's cluster slice")
	}
	if again := out.Resolved(); !reflect.DeepEqual(again, out) {
		t.Fatalf("resolving twice changed the config:\n%s\n%s", out, again)
	}
}

func TestConfig_ValidateNeverMutates(t *testing.T) {
	for _, c := range []Config{Default(), Default().Resolved(), {}, {NoEther: true, Ether: EtherSpawn}} {
		before := c
		before.Cluster = append([]string(nil), c.Cluster...)
		_ = c.Validate()
		if !reflect.DeepEqual(c, before) {
			t.Fatalf("Validate changed %#v", c)
		}
	}
	if err := Default().Validate(); err != nil {
		t.Fatalf("defaults are valid before resolving: %v", err)
	}
	if err := (Config{}).Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "--node-id") {
		t.Fatalf("zero config: %v", err)
	}
}

func TestConfig_Words(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "words.txt")
	if err := os.WriteFile(file, []byte("Darn\n  heck # mild\n\n# only a comment\ndarn\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, filter string
		want         []string
	}{
		{"none", "", nil},
		{"one word", "darn", []string{"darn"}},
		{"comma list", " Darn, heck,,darn ", []string{"darn", "heck"}},
		{"file", file, []string{"darn", "heck"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Config{WordFilter: tt.filter}
			got, err := c.Words()
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Words() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	t.Run("file too large", func(t *testing.T) {
		big := filepath.Join(dir, "big.txt")
		if err := os.WriteFile(big, bytes.Repeat([]byte("word\n"), maxWordFile/4), 0o600); err != nil {
			t.Fatal(err)
		}
		c := Config{WordFilter: big}
		if _, err := c.Words(); err == nil {
			t.Fatal("a word file over 1 MiB was accepted")
		}
	})
}
