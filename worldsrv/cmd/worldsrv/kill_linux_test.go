package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// kill -9 of a world leaves no sidecar behind (Linux: the kernel kills
// ether when the world's process ends).
func TestEtherSpawn_Kill9LeavesNoSidecar(t *testing.T) {
	ns := natstest.Start(t)
	p := start(t, append([]string{"--node-id", "10", "--ether", "spawn", "--ether-port", strconv.Itoa(natstest.FreePort(t)),
		"--ether-bin", testbin.Build(t, "./ether/cmd/ether"), "--cluster", ns.URL()},
		dbFlags(t, pgtest.NewDatabase(t))...)...)
	m := regexp.MustCompile(`msg="ether started".* pid=(\d+)`).FindStringSubmatch(p.out.String())
	if m == nil {
		t.Fatalf("no 'ether started' line with its pid")
	}
	pid, _ := strconv.Atoi(m[1])
	if !alive(pid) {
		t.Fatalf("ether (pid %d) is not running", pid)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	poll.True(t, wait, "ether gone after kill -9 of its world", func() bool { return !alive(pid) })
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}
