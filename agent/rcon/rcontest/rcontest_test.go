package rcontest_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/agent/rcon/rcontest"
	"github.com/corrosion/corrosion/internal/webrcon"
)

type rawPacket struct {
	id, typ int32
	body    string
}

// rawConn is a hand-written Source RCON client for checking the server
// byte for byte.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	return &rawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *rawConn) send(ps ...rawPacket) {
	var buf []byte
	for _, p := range ps {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(p.body)+10))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(p.id))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(p.typ))
		buf = append(append(buf, p.body...), 0, 0)
	}
	if _, err := c.nc.Write(buf); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads n packets; fewer if the connection ends.
func (c *rawConn) recv(n int) []rawPacket {
	var out []rawPacket
	for range n {
		var hdr [12]byte
		if _, err := io.ReadFull(c.br, hdr[:]); err != nil {
			return out
		}
		rest := make([]byte, binary.LittleEndian.Uint32(hdr[:])-8)
		if _, err := io.ReadFull(c.br, rest); err != nil {
			return out
		}
		out = append(out, rawPacket{int32(binary.LittleEndian.Uint32(hdr[4:])),
			int32(binary.LittleEndian.Uint32(hdr[8:])), string(rest[:len(rest)-2])})
	}
	return out
}

func TestSourceServer_Packets(t *testing.T) {
	reply := strings.Repeat("x", 10)
	cases := []struct {
		name string
		opts rcontest.SourceOptions
		send []rawPacket
		n    int
		want []rawPacket
	}{
		{"auth ok", rcontest.SourceOptions{Password: "pw"}, []rawPacket{{5, 3, "pw"}}, 2,
			[]rawPacket{{5, 0, ""}, {5, 2, ""}}},
		{"auth ok, no pre-auth packet", rcontest.SourceOptions{Password: "pw", NoPreAuthPacket: true}, []rawPacket{{5, 3, "pw"}}, 1,
			[]rawPacket{{5, 2, ""}}},
		{"auth rejected", rcontest.SourceOptions{Password: "pw"}, []rawPacket{{5, 3, "no"}}, 2,
			[]rawPacket{{5, 0, ""}, {-1, 2, ""}}},
		{"auth rejected by close", rcontest.SourceOptions{Password: "pw", RejectByClose: true}, []rawPacket{{5, 3, "no"}}, 2, nil},
		{"command before auth closes", rcontest.SourceOptions{Password: "pw"}, []rawPacket{{5, 2, "status"}}, 1, nil},
		{"split reply and probe echo", rcontest.SourceOptions{PacketSize: 4}, []rawPacket{{1, 3, ""}, {2, 2, "cmd"}, {3, 0, ""}}, 7,
			[]rawPacket{{1, 0, ""}, {1, 2, ""}, {2, 0, "xxxx"}, {2, 0, "xxxx"}, {2, 0, "xx"}, {3, 0, ""}, {3, 0, rcontest.ProbeTrailer}}},
		{"no probe echo", rcontest.SourceOptions{PacketSize: 4, NoProbeEcho: true}, []rawPacket{{1, 3, ""}, {2, 2, "cmd"}, {3, 0, ""}}, 8,
			[]rawPacket{{1, 0, ""}, {1, 2, ""}, {2, 0, "xxxx"}, {2, 0, "xxxx"}, {2, 0, "xx"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Handler = func(string) string { return reply }
			srv := rcontest.NewSource(t, tc.opts)
			c := dialRaw(t, srv.Addr())
			c.send(tc.send...)
			if tc.name == "no probe echo" {
				// Nothing follows the reply: end the read with a deadline.
				_ = c.nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			}
			got := c.recv(tc.n)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("packet %d = %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestWebServer_AuthAndNoise(t *testing.T) {
	cases := []struct {
		name     string
		opts     rcontest.WebOptions
		path     string
		wantHTTP int // 0: upgrade expected
		want     []webrcon.Frame
	}{
		{"bad password gets 401", rcontest.WebOptions{Password: "pw"}, "/no", http.StatusUnauthorized, nil},
		{"bad password closed", rcontest.WebOptions{Password: "pw", RejectByClose: true}, "/no", 0, nil},
		{"reply", rcontest.WebOptions{Password: "pw"}, "/pw", 0, []webrcon.Frame{{Message: "out", Identifier: 1001, Type: "Generic"}}},
		{"noise then reply", rcontest.WebOptions{Password: "pw", Noise: true}, "/pw", 0, []webrcon.Frame{
			{Identifier: -1, Type: "Chat"}, {Identifier: 0, Type: "Generic"},
			{Message: "[rcon] 127.0.0.1:50000: cmd", Identifier: 1001, Type: "Generic"},
			{Message: "out", Identifier: 1001, Type: "Generic"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Handler = func(string) string { return "out" }
			srv := rcontest.NewWeb(t, tc.opts)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			ws, resp, err := websocket.Dial(ctx, "ws://"+srv.Addr()+tc.path, nil)
			if tc.wantHTTP != 0 {
				if err == nil || resp == nil || resp.StatusCode != tc.wantHTTP {
					t.Fatalf("dial: %v, %v; want HTTP %d", resp, err, tc.wantHTTP)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ws.CloseNow()
			req, _ := json.Marshal(webrcon.Request{Identifier: 1001, Message: "cmd", Name: "WebRcon"})
			_ = ws.Write(ctx, websocket.MessageText, req)
			var got []webrcon.Frame
			for len(got) < len(tc.want)+1 {
				_, data, err := ws.Read(ctx)
				if err != nil {
					break // closed (bad password), or nothing more
				}
				var f webrcon.Frame
				_ = json.Unmarshal(data, &f)
				if f.Type == "Chat" || f.Identifier == 0 {
					f.Message = "" // noise text is not part of the contract
				}
				got = append(got, f)
				if len(got) == len(tc.want) {
					break
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("frames %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("frame %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
