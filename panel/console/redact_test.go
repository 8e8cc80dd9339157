package console

import (
	"strings"
	"testing"

	"github.com/corrosion/corrosion/panel/httpx"
)

func TestRedactCommand(t *testing.T) {
	cases := []struct{ in, want string }{
		{"status", "status"},
		{"say hello  world", "say hello world"},
		{"rcon.password hunter2", "rcon.password xxxxx"},
		{"server.password s3cret extra", "server.password xxxxx extra"},
		{"setpass --password hunter2 --user bob", "setpass --password xxxxx --user bob"},
		{"login admin pass hunter2", "login admin pass xxxxx"},
		{"password=hunter2", "password=xxxxx"},
		{"db_password:hunter2 x", "db_password:xxxxx x"},
		{"connect nats://u:p@h:4222", "connect nats://xxxxx@h:4222"},
		{"token abc", "token xxxxx"},
		{"password", "password"}, // nothing follows: nothing to hide
		{"kick bypassword", "kick bypassword xxxxx"[:len("kick bypassword")]},
	}
	for _, tc := range cases {
		if got := RedactCommand(tc.in); got != tc.want {
			t.Errorf("RedactCommand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzRedactCommand(f *testing.F) {
	for _, s := range []string{"rcon.password x", "a=b", "password=", "--pass  x y", "nats://a:b@c", "=", ":", "pass"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := RedactCommand(s)
		if strings.Contains(strings.ToLower(s), "password ") {
			fields := strings.Fields(s)
			for i, w := range fields[:max(0, len(fields)-1)] {
				if strings.EqualFold(w, "password") && !strings.Contains(got, "xxxxx") {
					t.Fatalf("%q (secret after field %d) redacted to %q", s, i, got)
				}
			}
		}
		if len(strings.Fields(got)) != len(strings.Fields(s)) && !strings.Contains(s, "://") {
			t.Fatalf("%q: field count changed: %q", s, got)
		}
	})
}

func TestCheckLine(t *testing.T) {
	cases := []struct {
		name, line string
		ok         bool
	}{
		{"plain", "say hi", true},
		{"empty", "", false},
		{"blank", "   ", false},
		{"newline", "a\nb", false},
		{"cr", "a\rb", false},
		{"nul", "a\x00b", false},
		{"max", strings.Repeat("x", MaxLineBytes), true},
		{"too long", strings.Repeat("x", MaxLineBytes+1), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLine(tc.line)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckLine: %v", err)
			}
			if err != nil && httpx.StatusOf(err) != 400 {
				t.Fatalf("status %d, want 400", httpx.StatusOf(err))
			}
		})
	}
}
