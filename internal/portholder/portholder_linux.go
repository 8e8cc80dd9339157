package portholder

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listenState is the socket state "LISTEN" in /proc/net/tcp.
const listenState = "0A"

func find(port int) (Holder, error) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if err := listeningInodes(table, port, inodes); err != nil && !os.IsNotExist(err) {
			return Holder{}, fmt.Errorf("portholder: read %s: %w", table, err)
		}
	}
	if len(inodes) == 0 {
		return Holder{}, fmt.Errorf("portholder: port %d: no listening socket: %w", port, ErrNotFound)
	}
	if pid := socketOwner(inodes); pid != 0 {
		return Holder{PID: pid, Command: command(pid)}, nil
	}
	return Holder{}, fmt.Errorf("portholder: port %d: the listening socket's process is not visible: %w", port, ErrNotFound)
}

// listeningInodes adds to inodes the socket inode of every listening
// socket on port found in table (/proc/net/tcp's format: "sl local_address
// rem_address st … inode", addresses as hex "ADDR:PORT").
func listeningInodes(table string, port int, inodes map[string]bool) error {
	f, err := os.Open(table)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header line
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != listenState {
			continue
		}
		_, hexPort, ok := strings.Cut(fields[1], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 16); !ok || err != nil || int(p) != port {
			continue
		}
		inodes["socket:["+fields[9]+"]"] = true
	}
	return sc.Err()
}

// socketOwner is the first process with an open descriptor on one of the
// sockets, or 0.
func socketOwner(sockets map[string]bool) int {
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/[0-9]*")
	for _, fd := range fds {
		if link, err := os.Readlink(fd); err == nil && sockets[link] {
			pid, _ := strconv.Atoi(strings.Split(fd, "/")[2])
			return pid
		}
	}
	return 0
}

// command is pid's command line, arguments joined by spaces.
func command(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
