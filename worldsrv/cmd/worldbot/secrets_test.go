package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/worldsrv/bot/swarm"
	"github.com/corrosion/corrosion/worldsrv/bot/worldtest"
)

// The bots' password comes from $WORLDBOT_PASSWORD or --password-file and
// is then not on worldbot's command line, which every local user reads
// (/proc/PID/cmdline, ps). The file wins over the variable; with neither,
// the password is still pw. --help says the flag is visible to ps.
func TestWorldbot_PasswordFromEnvAndFile_NotOnCommandLine(t *testing.T) {
	const secret = "envSECRET-1"
	w := worldtest.Run(t, pgtest.NewDatabase(t))
	noSecretArgv := func(what string, pid int) {
		t.Helper()
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			return // no /proc: nothing to read
		}
		for _, s := range []string{secret, "\x00--password\x00"} {
			if bytes.Contains(append(cmdline, 0), []byte(s)) {
				t.Errorf("%s: %q is on the command line: %q", what, s, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
			}
		}
	}
	login := func(env []string, args ...string) (int, swarm.Report) {
		t.Helper()
		code, out, errOut := worldbotEnv(t, env, func(cmd *exec.Cmd) { noSecretArgv("worldbot", cmd.Process.Pid) }, nil,
			append([]string{"--addr", w.Game, "--bots", "1", "--prefix", "pwbot", "--duration", "1s", "--json"}, args...)...)
		var rep swarm.Report
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("exit %d, report %s (%v)\n%s", code, out, err, errOut)
		}
		return code, rep
	}

	// The first login registers pwbot0 with the variable's password.
	if code, rep := login([]string{"WORLDBOT_PASSWORD=" + secret}); code != 0 || rep.Logins != 1 {
		t.Fatalf("WORLDBOT_PASSWORD: exit %d, report %+v", code, rep)
	}
	// Without it the default pw is refused: the variable was used.
	if code, rep := login(nil); code != 1 || rep.Logins != 0 || rep.LoginFailures != 1 {
		t.Fatalf("default password: exit %d, report %+v; want refused", code, rep)
	}
	// The file's password (less its line break) wins over the variable.
	file := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(file, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, rep := login([]string{"WORLDBOT_PASSWORD=wrong"}, "--password-file", file); code != 0 || rep.Logins != 1 {
		t.Fatalf("--password-file: exit %d, report %+v", code, rep)
	}

	code, _, errOut := worldbotEnv(t, []string{"WORLDBOT_PASSWORD=" + secret}, nil, nil, "--help")
	if code != 0 || !strings.Contains(errOut, "visible to every local user (ps)") || !strings.Contains(errOut, "-password-file") {
		t.Errorf("--help: exit %d, stderr %q", code, errOut)
	}
	if strings.Contains(errOut, secret) {
		t.Errorf("--help shows the variable's password: %q", errOut)
	}
	code, _, errOut = worldbot(t, nil, nil, "--addr", w.Game, "--password-file", "/nonexistent/worldbot-password")
	if code != 2 || !strings.Contains(errOut, "worldbot: invalid value \"/nonexistent/worldbot-password\" for flag -password-file: cannot read the secret file") {
		t.Errorf("missing --password-file: exit %d, stderr %q", code, errOut)
	}
}
