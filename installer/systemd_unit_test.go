package installer

import (
	"strings"
	"testing"
)

// TestSystemdUnit_Content: the settings the issue asks for, with the
// paths given.
func TestSystemdUnit_Content(t *testing.T) {
	u := SystemdUnit(UnitOptions{Binary: "/opt/c/corrosion-agent", ConfigPath: "/etc/c/a.toml"})
	for _, want := range []string{
		"\nKillMode=process\n", "\nRestart=always\n", "\nRestartSec=5s\n",
		"\nWants=network-online.target\n", "\nAfter=network-online.target\n",
		"\nLimitNOFILE=65536\n", "\nUser=corrosion\n", "\nGroup=corrosion\n",
		"\nExecStartPre=/opt/c/corrosion-agent validate --config /etc/c/a.toml\n",
		"\nExecStart=/opt/c/corrosion-agent run --config /etc/c/a.toml\n",
		"\nExecStop=+/opt/c/corrosion-agent shutdown-hook\n", "\nTimeoutStopSec=120s\n",
		"\nEnvironmentFile=-/etc/corrosion/agent.env\n",
		"\nStateDirectory=corrosion-agent\n", "\nWorkingDirectory=/var/lib/corrosion-agent\n",
		"\nWantedBy=multi-user.target\n",
	} {
		if !strings.Contains(u, want) {
			t.Errorf("unit lacks %q", strings.TrimSpace(want))
		}
	}
	// Settings that would jail or break the game servers (children).
	for _, never := range []string{"ProtectSystem=", "ProtectHome=", "PrivateTmp=", "PrivateDevices=",
		"MemoryDenyWriteExecute=", "SystemCallFilter=", "DeviceAllow=", "KillMode=control-group"} {
		for _, line := range strings.Split(u, "\n") {
			if strings.HasPrefix(line, never) {
				t.Errorf("unit sets %s", line)
			}
		}
	}
	if d := SystemdUnit(UnitOptions{}); !strings.Contains(d, "\nExecStart=/usr/local/bin/corrosion-agent run --config /etc/corrosion/agent.toml\n") {
		t.Errorf("default unit:\n%s", d)
	}
}

func TestSystemdArg(t *testing.T) {
	cases := []struct{ in, want string }{
		{"/usr/local/bin/corrosion-agent", "/usr/local/bin/corrosion-agent"},
		{"/opt/my games/agent", `"/opt/my games/agent"`},
		{"/opt/100%/agent", "/opt/100%%/agent"},
		{"/opt/$HOME/agent", "/opt/$$HOME/agent"},
		{`/opt/a"b\c`, `"/opt/a\"b\\c"`},
	}
	for _, c := range cases {
		if got := systemdArg(c.in); got != c.want {
			t.Errorf("systemdArg(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseEnvFile(t *testing.T) {
	got := parseEnvFile([]byte("# secrets\n\nRCON=s3cret\n QUOTED = \"a b\" \nSINGLE='x'\n; note\nnoequals\nEMPTY=\n"))
	want := map[string]string{"RCON": "s3cret", "QUOTED": "a b", "SINGLE": "x", "EMPTY": ""}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
