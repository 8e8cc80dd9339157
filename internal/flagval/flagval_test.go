package flagval

import (
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSetters(t *testing.T) {
	var (
		i    int
		port int
		node uint8
		b    bool
		d    time.Duration
		l    []string
		lvl  slog.Level
	)
	cases := []struct {
		name string
		set  Setter
		in   string
		ok   bool
		got  func() any
		want any
	}{
		{"int", Int(&i), " 42 ", true, func() any { return i }, 42},
		{"int bad", Int(&i), "4x", false, nil, nil},
		{"port", Port(&port), "8080", true, func() any { return port }, 8080},
		{"port too big", Port(&port), "65536", false, nil, nil},
		{"port negative", Port(&port), "-1", false, nil, nil},
		{"node", NodeID(&node), "255", true, func() any { return node }, uint8(255)},
		{"node zero", NodeID(&node), "0", false, nil, nil},
		{"node too big", NodeID(&node), "256", false, nil, nil},
		{"bool", Bool(&b), "true", true, func() any { return b }, true},
		{"bool bad", Bool(&b), "yes please", false, nil, nil},
		{"duration", Duration(&d), "1500ms", true, func() any { return d }, 1500 * time.Millisecond},
		{"duration bad", Duration(&d), "10", false, nil, nil},
		{"list", List(&l), " a, ,b ,", true, func() any { return slices.Clone(l) }, []string{"a", "b"}},
		{"level warning", Level(&lvl), "WARNING", true, func() any { return lvl }, slog.LevelWarn},
		{"level empty is info", Level(&lvl), "", true, func() any { return lvl }, slog.LevelInfo},
		{"level bad", Level(&lvl), "loud", false, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.set(c.in)
			if (err == nil) != c.ok {
				t.Fatalf("set(%q) error = %v, want ok %v", c.in, err, c.ok)
			}
			if c.ok {
				if got := c.got(); !equal(got, c.want) {
					t.Fatalf("set(%q) stored %v, want %v", c.in, got, c.want)
				}
			}
		})
	}
}

func equal(a, b any) bool {
	if as, ok := a.([]string); ok {
		bs, _ := b.([]string)
		return slices.Equal(as, bs)
	}
	return a == b
}

func TestLevelName_RoundTrips(t *testing.T) {
	for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
		back, err := ParseLevel(LevelName(l))
		if err != nil || back != l {
			t.Errorf("ParseLevel(LevelName(%v)) = %v, %v", l, back, err)
		}
	}
	if got := LevelName(slog.Level(3)); got != "3" {
		t.Errorf("LevelName(3) = %q, want the number", got)
	}
}

func TestSecretFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var got string
	for _, tc := range []struct{ content, want string }{
		{"hunter2\n", "hunter2"}, {"hunter2\r\n", "hunter2"}, {"hunter2", "hunter2"}, {" two words \n\n", " two words \n"},
	} {
		if err := SecretFile(&got)(write("s", tc.content)); err != nil || got != tc.want {
			t.Errorf("%q: got %q, %v; want %q", tc.content, got, err, tc.want)
		}
	}
	got = "kept"
	for _, path := range []string{write("empty", "\n"), write("big", strings.Repeat("x", maxSecretFile+1)), dir + "/missing"} {
		err := SecretFile(&got)(path)
		if err == nil || got != "kept" {
			t.Errorf("%s: got %q, %v; want an error and the value kept", path, got, err)
		}
		if err != nil && strings.Contains(err.Error(), "xxxx") {
			t.Errorf("%s: the error shows the content: %v", path, err)
		}
	}
}

func TestShown_HidesASetSecret(t *testing.T) {
	if Shown("hunter2") != "***" || Shown("") != "" || NoDefault() != "" {
		t.Fatalf("Shown(set) %q, Shown(unset) %q, NoDefault %q", Shown("hunter2"), Shown(""), NoDefault())
	}
}
