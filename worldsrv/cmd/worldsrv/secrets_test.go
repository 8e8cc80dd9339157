package main

import (
	"bytes"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/testbin"
)

// TestSecrets_OutOfTheProcessList: the RCON and database passwords given
// as files (--rcon-password-file, --db-pass-file) work, and neither
// appears in the process's command line, which every local user can read
// (/proc/PID/cmdline, ps). --help says so of the argv forms.
func TestSecrets_OutOfTheProcessList(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	args := dbFlags(t, dsn) // with --db-pass-file when dsn has a password
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dbPass, _ := u.User.Password()
	if dbPass == "" {
		dbPass = "db-secret-unused-by-trust" // a throwaway cluster trusts local users: any password logs in
		args = append(args, "--db-pass-file", secretFile(t, dbPass))
	}
	args = append(args, "--rcon-password-file", secretFile(t, rconPassword))
	p := start(t, append([]string{"--node-id", "10", "--ether", "off"}, args...)...)
	execWant(t, p.admin(rcon.KindSource, rconPassword), "status", "node 10")
	// Linux shows every process's command line in /proc (elsewhere ps
	// asks the kernel the same way; the check needs /proc).
	if cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/cmdline"); err == nil {
		for _, secret := range []string{rconPassword, dbPass} {
			if bytes.Contains(cmdline, []byte(secret)) {
				t.Errorf("a secret is on the command line: %q", bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
			}
		}
	}

	help, _ := exec.Command(testbin.Build(t, "./worldsrv/cmd/worldsrv"), "--help").CombinedOutput()
	for _, flag := range []string{"rcon-password", "db-pass", "link-token"} {
		i := strings.Index(string(help), "-"+flag+" ")
		if i < 0 {
			t.Fatalf("--help has no --%s:\n%s", flag, help)
		}
		entry, _, _ := strings.Cut(string(help[i:]), "\n  -")
		entry = strings.Join(strings.Fields(entry), " ")
		if !strings.Contains(entry, "visible to every local user (ps)") || !strings.Contains(entry, "--"+flag+"-file") {
			t.Errorf("--help of --%s does not warn about ps or name --%s-file: %q", flag, flag, entry)
		}
	}
}
