package admin_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/worldsrv/admin"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, line string
		want       admin.Command
		wantErr    string // substring of the reply; "" means success
	}{
		{"status", "status", admin.Command{Verb: admin.VerbStatus}, ""},
		{"upper case and spaces", "  STATUS  ", admin.Command{Verb: admin.VerbStatus}, ""},
		{"players", "players", admin.Command{Verb: admin.VerbPlayers}, ""},
		{"say", "say hello  world", admin.Command{Verb: admin.VerbSay, Text: "hello  world"}, ""},
		{"say utf8", "say grüße", admin.Command{Verb: admin.VerbSay, Text: "grüße"}, ""},
		{"kick", "kick Zezima", admin.Command{Verb: admin.VerbKick, Name: "Zezima"}, ""},
		{"kick with space", "kick big bob", admin.Command{Verb: admin.VerbKick, Name: "big bob"}, ""},
		{"save", "save", admin.Command{Verb: admin.VerbSave}, ""},
		{"shutdown now", "shutdown", admin.Command{Verb: admin.VerbShutdown}, ""},
		{"shutdown 30", "shutdown 30", admin.Command{Verb: admin.VerbShutdown, Delay: 30 * time.Second}, ""},
		{"shutdown max", "shutdown 3600", admin.Command{Verb: admin.VerbShutdown, Delay: time.Hour}, ""},
		{"help", "help", admin.Command{Verb: admin.VerbHelp}, ""},
		{"empty", "   ", admin.Command{}, "empty command; commands: status, players"},
		{"unknown", "teleport bob", admin.Command{}, `unknown command "teleport"; commands: status, players, say, kick, save, shutdown, help`},
		{"say nothing", "say   ", admin.Command{}, "say needs a message"},
		{"say too long", "say " + strings.Repeat("x", admin.MaxSayBytes+1), admin.Command{}, "limit 200"},
		{"say control", "say a\x07b", admin.Command{}, "control characters"},
		{"say bad utf8", "say a\xffb", admin.Command{}, "invalid UTF-8"},
		{"kick nobody", "kick", admin.Command{}, "kick needs a player name"},
		{"kick bad name", "kick no!pe", admin.Command{}, "not a valid player name"},
		{"kick long name", "kick abcdefghijklm", admin.Command{}, "not a valid player name"},
		{"shutdown negative", "shutdown -5", admin.Command{}, "not a number of seconds from 0 to 3600"},
		{"shutdown plus", "shutdown +5", admin.Command{}, "not a number of seconds"},
		{"shutdown too long", "shutdown 3601", admin.Command{}, "not a number of seconds"},
		{"shutdown huge", "shutdown 99999999999999999999", admin.Command{}, "not a number of seconds"},
		{"shutdown words", "shutdown soon", admin.Command{}, "usage: shutdown [seconds]"},
		{"status with argument", "status now", admin.Command{}, "status takes no argument"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := admin.Parse(tc.line)
			if tc.wantErr != "" {
				var pe *admin.ParseError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse(%q) = %+v, %v; want a ParseError containing %q", tc.line, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
			}
		})
	}
}

func TestExec_Replies(t *testing.T) {
	c := &recordingConsole{players: []string{"zed", "Alice"}}
	cases := []struct {
		line     string
		want     string // substring of the reply
		failed   bool
		wantCall string // "" when the console must not be called
	}{
		{"status", "node 10  seed 3735552002  biome arctic\nplayers 2/2000  uptime 5m12s  ether up\nticks 520  tick p99 4.2 ms", false, "status"},
		{"players", "2 players online: Alice, zed", false, "players"},
		{"say server restarts soon", "said: server restarts soon", false, "say server restarts soon"},
		{"kick nobody", `kick: no player named "nobody" is online`, true, "kick nobody"},
		{"kick alice", "kicked alice", false, "kick alice"},
		{"save", "saved 1 player", false, "save"},
		{"shutdown 30", "shutting down in 30 seconds", false, "shutdown 30s"},
		{"shutdown", "a shutdown is already under way", true, "shutdown 0s"},
		{"help", "shutdown [seconds]", false, ""},
		{"frobnicate", `unknown command "frobnicate"`, true, ""},
	}
	for _, tc := range cases {
		before := len(c.Calls())
		r := admin.Exec(context.Background(), c, tc.line)
		if !strings.Contains(r.Text, tc.want) || r.Failed != tc.failed {
			t.Errorf("Exec(%q) = %+v; want text containing %q, failed %v", tc.line, r, tc.want, tc.failed)
		}
		calls := c.Calls()[before:]
		if (tc.wantCall == "" && len(calls) != 0) || (tc.wantCall != "" && (len(calls) != 1 || calls[0] != tc.wantCall)) {
			t.Errorf("Exec(%q) called %q; want %q", tc.line, calls, tc.wantCall)
		}
	}
}

func TestExec_NoPlayers(t *testing.T) {
	r := admin.Exec(context.Background(), &recordingConsole{}, "players")
	if r.Text != "no players online" || r.Failed {
		t.Fatalf("players with nobody online = %+v", r)
	}
}

func TestExec_StalledWorldTimesOut(t *testing.T) {
	c := &recordingConsole{block: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r := admin.Exec(ctx, c, "status")
	if !r.Failed || !strings.Contains(r.Text, "did not answer in time") {
		t.Fatalf("status on a stalled world = %+v", r)
	}
}

func TestNew_EmptyPasswordIsOff(t *testing.T) {
	if _, err := admin.New(admin.Config{Console: &recordingConsole{}}); !errors.Is(err, admin.ErrDisabled) {
		t.Fatalf("New with empty password: %v; want ErrDisabled", err)
	}
	if _, err := admin.New(admin.Config{Password: "x"}); err == nil {
		t.Fatal("New without a Console succeeded")
	}
}
