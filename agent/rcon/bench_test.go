package rcon_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/agent/rcon/rcontest"
)

// BenchmarkSourceRoundTrip: one short command and its reply against the
// Source RCON test server. baseline is the least a client can do: a raw
// TCP connection, hand-written packets, one packet read per command (no
// probe, no reassembly, no ids checked). corrosion is Client.Exec.
func BenchmarkSourceRoundTrip(b *testing.B) {
	srv := rcontest.NewSource(b, rcontest.SourceOptions{Password: "pw", Handler: func(string) string { return "pong" }})
	b.Run("baseline", func(b *testing.B) {
		nc, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		br := bufio.NewReader(nc)
		rawWrite(b, nc, 1, 3, "pw")
		for typ := int32(0); typ != 2; { // skip the pre-auth empty packet
			typ, _ = rawRead(b, br)
		}
		timed(b, func() {
			rawWrite(b, nc, 2, 2, "ping")
			if _, body := rawRead(b, br); body != "pong" {
				b.Fatalf("reply %q", body)
			}
		})
	})
	b.Run("corrosion", func(b *testing.B) {
		c, err := rcon.New(rcon.Config{Kind: rcon.KindSource, Port: srv.Port(), Password: "pw"})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		timed(b, func() {
			if out, err := c.Exec(ctx, "ping"); err != nil || out != "pong" {
				b.Fatalf("Exec = %q, %v", out, err)
			}
		})
	})
}

// BenchmarkSourceLargeResponse: a 1 MiB reply in 4 KiB packets, reassembled.
func BenchmarkSourceLargeResponse(b *testing.B) {
	reply := bigReply(rcon.MaxResponseBytes)
	srv := rcontest.NewSource(b, rcontest.SourceOptions{Password: "pw", PacketSize: 4096,
		Handler: func(string) string { return reply }})
	c, err := rcon.New(rcon.Config{Kind: rcon.KindSource, Port: srv.Port(), Password: "pw"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	b.SetBytes(int64(len(reply)))
	b.ResetTimer()
	for b.Loop() {
		if out, err := c.Exec(ctx, "dump"); err != nil || len(out) != len(reply) {
			b.Fatalf("Exec = %d bytes, %v", len(out), err)
		}
	}
}

// timed runs op b.N times and reports its latency percentiles.
func timed(b *testing.B, op func()) {
	lat := make([]time.Duration, 0, 1<<16)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		op()
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(start))
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(0.50), "p50-us")
	b.ReportMetric(pct(0.99), "p99-us")
}

func rawWrite(b *testing.B, w io.Writer, id, typ int32, body string) {
	buf := make([]byte, 12, 14+len(body))
	binary.LittleEndian.PutUint32(buf[0:], uint32(len(body)+10))
	binary.LittleEndian.PutUint32(buf[4:], uint32(id))
	binary.LittleEndian.PutUint32(buf[8:], uint32(typ))
	buf = append(append(buf, body...), 0, 0)
	if _, err := w.Write(buf); err != nil {
		b.Fatal(err)
	}
}

func rawRead(b *testing.B, r io.Reader) (typ int32, body string) {
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		b.Fatal(err)
	}
	rest := make([]byte, binary.LittleEndian.Uint32(hdr[0:])-8)
	if _, err := io.ReadFull(r, rest); err != nil {
		b.Fatal(err)
	}
	return int32(binary.LittleEndian.Uint32(hdr[8:])), string(rest[:len(rest)-2])
}
