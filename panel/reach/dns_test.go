package reach_test

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/reach"
)

// dnsServer is a minimal DNS server on a loopback UDP port answering A and
// AAAA questions from records (any other name: NXDOMAIN), and a resolver
// that asks only it.
func dnsServer(t *testing.T, records map[string][]netip.Addr) (*net.Resolver, *atomic.Int64) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	var queries atomic.Int64
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil || n < 12 {
				continue
			}
			queries.Add(1)
			if reply := dnsAnswer(buf[:n], records); reply != nil {
				_, _ = pc.WriteTo(reply, from)
			}
		}
	}()
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
	return r, &queries
}

// dnsAnswer is the reply to one query: its header and question, then the
// records of the asked type.
func dnsAnswer(q []byte, records map[string][]netip.Addr) []byte {
	var labels []string
	off := 12
	for off < len(q) && q[off] != 0 {
		l := int(q[off])
		if off+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[off+1:off+1+l]))
		off += 1 + l
	}
	if off+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[off+1:])
	question := q[12 : off+5]
	addrs, known := records[strings.ToLower(strings.Join(labels, "."))+"."]
	var answers [][]byte
	for _, a := range addrs {
		if (qtype == 1 && a.Is4()) || (qtype == 28 && a.Is6()) {
			rr := []byte{0xc0, 12} // the question's name
			rr = binary.BigEndian.AppendUint16(rr, qtype)
			rr = binary.BigEndian.AppendUint16(rr, 1)  // IN
			rr = binary.BigEndian.AppendUint32(rr, 60) // TTL
			rr = binary.BigEndian.AppendUint16(rr, uint16(len(a.AsSlice())))
			answers = append(answers, append(rr, a.AsSlice()...))
		}
	}
	flags := uint16(0x8180) // response, recursion desired and available
	if !known {
		flags |= 3 // NXDOMAIN
	}
	out := append([]byte{}, q[:2]...) // the query's id
	out = binary.BigEndian.AppendUint16(out, flags)
	out = binary.BigEndian.AppendUint16(out, 1)
	out = binary.BigEndian.AppendUint16(out, uint16(len(answers)))
	out = append(out, 0, 0, 0, 0)
	out = append(out, question...)
	for _, a := range answers {
		out = append(out, a...)
	}
	return out
}

// TestProbeNames: a name is resolved once and every address it resolves to
// must pass the policy; the probe then dials the address, not the name.
func TestProbeNames(t *testing.T) {
	public := netip.MustParseAddr("198.51.100.20")
	resolver, queries := dnsServer(t, map[string][]netip.Addr{
		"mixed.test.":  {public, netip.MustParseAddr("10.0.0.9")},
		"ula.test.":    {public, netip.MustParseAddr("fd00::9")},
		"public.test.": {public},
	})
	p, err := reach.New(reach.Options{Resolver: resolver, Timeout: 200 * time.Millisecond,
		OwnAddrs: []netip.Addr{netip.MustParseAddr("192.0.2.1")}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, host, want string }{
		{"mixed.test.", "mixed.test.", "refused: mixed.test. resolves to 10.0.0.9, a private address (RFC 1918); the panel probes only public addresses"},
		{"ula.test.", "ula.test.", "refused: ula.test. resolves to fd00::9, a unique local address (RFC 4193)"},
		{"missing.test.", "missing.test.", "not probed: lookup missing.test."},
	}
	for _, c := range cases {
		rep, err := p.Probe(t.Context(), reach.Request{InstanceID: c.name, Address: c.name,
			Ports: []reach.Port{{Name: "game", Protocol: reach.TCP, Port: 28015}}})
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Results[0]
		if r.OK || r.Check != reach.CheckNone || r.Host != c.host || !strings.HasPrefix(r.Error, c.want) {
			t.Errorf("%s: %+v, want host %s error %q", c.name, r, c.host, c.want)
		}
	}
	before := queries.Load()
	rep, err := p.Probe(t.Context(), reach.Request{InstanceID: "public", Address: "public.test.",
		Ports: []reach.Port{{Name: "game", Protocol: reach.TCP, Port: 28015}}})
	if err != nil {
		t.Fatal(err)
	}
	// Probed (whatever the test machine's network answers), by the address
	// the name resolved to.
	if r := rep.Results[0]; r.Host != public.String() || r.Check != reach.CheckTCPConnect {
		t.Fatalf("public.test.: %+v, want a tcp_connect to %s", r, public)
	}
	if n := queries.Load() - before; n < 1 || n > 2 { // one lookup: A and AAAA
		t.Fatalf("%d DNS queries for one probe, want the A and AAAA of one lookup", n)
	}
}
