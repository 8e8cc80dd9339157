package portholder

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// A port this process listens on is held by this process; one another
// process listens on, by that one, named with its command line.
func TestFind(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	h, err := Find(port)
	if err != nil || h.PID != os.Getpid() || h.Command == "" {
		t.Fatalf("Find(%d) = %+v, %v; want pid %d", port, h, err, os.Getpid())
	}
	if want := "pid " + strconv.Itoa(os.Getpid()) + " ("; !strings.HasPrefix(h.String(), want) {
		t.Fatalf("String() = %q, want it to start with %q", h.String(), want)
	}
}

func TestFind_AnotherProcess(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	cmd := exec.Command("sleep", "30")
	cmd.ExtraFiles = []*os.File{f} // the child holds the socket too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ln.Close()
	f.Close()
	h, err := Find(port)
	if err != nil || h.PID != cmd.Process.Pid || h.Command != "sleep 30" {
		t.Fatalf("Find(%d) = %+v, %v; want pid %d (sleep 30)", port, h, err, cmd.Process.Pid)
	}
}

func TestFind_NobodyListens(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if h, err := Find(port); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find(%d) of a closed port = %+v, %v; want ErrNotFound", port, h, err)
	}
}
