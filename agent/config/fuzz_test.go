package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzParse: arbitrary input never panics; a config that parses is valid,
// has a start order, and survives an encode/parse round trip unchanged.
// Inputs may use the placeholders ROOT and EXE (see fixture.toml), so the
// corpus in testdata/fuzz/FuzzParse works on any machine.
func FuzzParse(f *testing.F) {
	fx := newFixture(f)
	env := mapEnv(map[string]string{"PASS": "pw", "EMPTY": "", "NATS": "nats://127.0.0.1:4222"})
	f.Add([]byte(baseTOML))
	if ex, err := os.ReadFile("testdata/example.toml"); err == nil {
		f.Add(ex)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(fx.toml(string(data)), env)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		checkParsed(t, c)
		again := roundTrip(t, c, env)
		if !reflect.DeepEqual(normalize(c), normalize(again)) {
			t.Fatalf("round trip changed the config:\n before %+v\n after  %+v", c, again)
		}
	})
}

func checkParsed(t *testing.T, c *Config) {
	if err := c.Validate(); err != nil {
		t.Fatalf("parsed config does not re-validate: %v", err)
	}
	order, err := c.StartOrder()
	if err != nil || len(order) != len(c.Instances) {
		t.Fatalf("StartOrder = %d instances, %v; want %d", len(order), err, len(c.Instances))
	}
	placed := map[string]bool{}
	for _, in := range order {
		for _, d := range in.DependsOn {
			if !placed[d] {
				t.Fatalf("%s placed before its dependency %s", in.ID, d)
			}
		}
		placed[in.ID] = true
		if c.Instance(in.ID) != in {
			t.Fatalf("Instance(%q) is not the StartOrder entry", in.ID)
		}
	}
	if len(c.NATSURLs()) == 0 {
		t.Fatal("valid config without NATS URLs")
	}
}

// roundTrip encodes c (escaping "${" so values are not expanded twice) and
// parses the result.
func roundTrip(t *testing.T, c *Config, env func(string) (string, bool)) *Config {
	var buf bytes.Buffer
	cp := *c
	cp.Instances = make([]Instance, len(c.Instances))
	for i, in := range c.Instances {
		cp.Instances[i] = in
		cp.Instances[i].Args = append([]string(nil), in.Args...)
		cp.Instances[i].DependsOn = append([]string(nil), in.DependsOn...)
		cp.Instances[i].Files.Deny = append([]string(nil), in.Files.Deny...)
		if in.Env != nil {
			cp.Instances[i].Env = map[string]string{}
			for k, v := range in.Env {
				cp.Instances[i].Env[k] = v
			}
		}
		if in.RCON != nil {
			r := *in.RCON
			cp.Instances[i].RCON = &r
		}
	}
	cp.eachString(func(_ string, s *string) { *s = strings.ReplaceAll(*s, "${", "$${") })
	if err := toml.NewEncoder(&buf).Encode(&cp); err != nil {
		t.Fatalf("encode: %v", err)
	}
	again, err := Parse(buf.Bytes(), env)
	if err != nil {
		t.Fatalf("re-parse of encoded config: %v\n%s", err, buf.String())
	}
	return again
}

// normalize makes empty slices and maps nil, which TOML cannot tell apart.
func normalize(c *Config) *Config {
	cp := *c
	if len(cp.Probes) == 0 {
		cp.Probes = nil
	}
	if len(cp.Instances) == 0 {
		cp.Instances = nil
	}
	cp.Instances = append([]Instance(nil), cp.Instances...)
	for i := range cp.Instances {
		in := &cp.Instances[i]
		if len(in.Args) == 0 {
			in.Args = nil
		}
		if len(in.Env) == 0 {
			in.Env = nil
		}
		if len(in.DependsOn) == 0 {
			in.DependsOn = nil
		}
		if len(in.Files.Deny) == 0 {
			in.Files.Deny = nil
		}
	}
	return &cp
}

// TestFuzzCorpus_Seeds keeps the seed corpus meaningful: the valid-* seeds
// parse and the invalid-* seeds do not.
func TestFuzzCorpus_Seeds(t *testing.T) {
	fx := newFixture(t)
	env := mapEnv(map[string]string{"PASS": "pw", "EMPTY": "", "NATS": "nats://127.0.0.1:4222"})
	paths, err := filepath.Glob("testdata/fuzz/FuzzParse/*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, p := range paths {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitN(string(raw), "\n", 3)
			if len(lines) < 2 || lines[0] != "go test fuzz v1" {
				t.Fatalf("not a fuzz corpus file")
			}
			q, ok := strings.CutPrefix(strings.TrimSpace(lines[1]), "[]byte(")
			if !ok {
				t.Fatalf("not a []byte entry")
			}
			data, err := strconv.Unquote(strings.TrimSuffix(q, ")"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(fx.toml(data), env)
			switch {
			case strings.HasPrefix(name, "valid-") && err != nil:
				t.Errorf("valid seed does not parse: %v", err)
			case strings.HasPrefix(name, "invalid-") && err == nil:
				t.Error("invalid seed parses")
			}
		})
	}
}
