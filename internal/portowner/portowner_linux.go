package portowner

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tcpListen is the state column's value for a listening socket
// (include/net/tcp_states.h: TCP_LISTEN = 10).
const tcpListen = "0A"

func lookup(port int) (Owner, error) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if f, err := os.Open(table); err == nil {
			listeningInodes(f, port, inodes)
			f.Close()
		}
	}
	if len(inodes) == 0 {
		return Owner{}, ErrUnknown
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return Owner{}, ErrUnknown
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		if holds(pid, inodes) {
			return Owner{PID: pid, Program: program(pid)}, nil
		}
	}
	return Owner{}, ErrUnknown
}

// listeningInodes adds to inodes the inode of every listening socket on
// port in a /proc/net/tcp{,6} table. A line is
//
//	sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
//
// with local_address as hex address:hex port.
func listeningInodes(table io.Reader, port int, inodes map[string]bool) {
	sc := bufio.NewScanner(table)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != tcpListen {
			continue
		}
		_, hexPort, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(p) == port && fields[9] != "0" {
			inodes[fields[9]] = true
		}
	}
}

// holds reports whether pid has one of the sockets open.
func holds(pid int, inodes map[string]bool) bool {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err != nil {
			continue
		}
		if inode, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(inode, "]")] {
			return true
		}
	}
	return false
}

// program is the process's argv[0], else its short name (comm).
func program(pid int) string {
	base := filepath.Join("/proc", strconv.Itoa(pid))
	if b, err := os.ReadFile(filepath.Join(base, "cmdline")); err == nil {
		if arg0, _, _ := bytes.Cut(b, []byte{0}); len(arg0) > 0 {
			return string(arg0)
		}
	}
	b, _ := os.ReadFile(filepath.Join(base, "comm"))
	return strings.TrimSpace(string(b))
}
