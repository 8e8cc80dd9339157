package supervise

import (
	"fmt"
	"os"
	"sync/atomic"

	"golang.org/x/sys/windows"
)

// A restarted agent writes to an adopted game's console input through a
// relay: the supervisor gets the writing end of a pipe of this agent's own
// (overlapped, bound to this agent's completion port, so the write
// deadline of a send works as for a game this agent started), and a
// goroutine copies what arrives there to the handle taken back from the
// game with overlapped writes whose completion is not queued to any port
// (an event whose handle has its low bit set), because that handle's file
// object stays bound to the port of the agent that opened it.
//
// The relay ends when the supervisor closes its end (the run is over) or
// a write to the game fails (the game exited). A game that stops reading
// its input holds a relay write until it reads again or exits; the
// supervisor's send meanwhile fills the relay's own pipe and reports
// stdin_full after its timeout.

// relayCount numbers this agent's relay pipes.
var relayCount atomic.Uint64

// relayChunk is the most one relay write carries.
const relayChunk = 4096

// newRelay starts a relay to the game's writing end game (which it owns
// from now on) and returns the supervisor's end.
func newRelay(game windows.Handle, name string) (*os.File, error) {
	pipe := fmt.Sprintf(`\\.\pipe\corrosion-relay-%d-%d`, windows.GetCurrentProcessId(), relayCount.Add(1))
	p, err := windows.UTF16PtrFromString(pipe)
	if err != nil {
		return nil, err
	}
	server, err := windows.CreateNamedPipe(p,
		windows.PIPE_ACCESS_INBOUND|windows.FILE_FLAG_FIRST_PIPE_INSTANCE|windows.FILE_FLAG_OVERLAPPED,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		1, 0, stdinPipeBuffer, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("create the stdin relay: %w", err)
	}
	client, err := windows.CreateFile(p, windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_OVERLAPPED, 0)
	if err != nil {
		_ = windows.CloseHandle(server)
		return nil, fmt.Errorf("connect to the stdin relay: %w", err)
	}
	go relay(os.NewFile(uintptr(server), pipe), game)
	return os.NewFile(uintptr(client), name), nil
}

// relay copies from r to the game until either side ends.
func relay(r *os.File, game windows.Handle) {
	defer r.Close()
	defer windows.CloseHandle(game)
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return
	}
	defer windows.CloseHandle(ev)
	buf := make([]byte, relayChunk)
	for {
		n, rerr := r.Read(buf)
		if n > 0 && writeUnqueued(game, ev, buf[:n]) != nil {
			return
		}
		if rerr != nil {
			return
		}
	}
}

// writeUnqueued writes b to h with overlapped writes that signal ev and
// queue nothing to h's completion port, waiting for each.
func writeUnqueued(h, ev windows.Handle, b []byte) error {
	for len(b) > 0 {
		ov := windows.Overlapped{HEvent: ev | 1} // low bit: no completion packet
		var n uint32
		err := windows.WriteFile(h, b, &n, &ov)
		if err == windows.ERROR_IO_PENDING {
			if _, err = windows.WaitForSingleObject(ev, windows.INFINITE); err == nil {
				err = windows.GetOverlappedResult(h, &ov, &n, false)
			}
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}
