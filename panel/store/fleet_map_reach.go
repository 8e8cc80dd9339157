package store

import (
	"unicode/utf8"

	"github.com/corrosion/corrosion/agent/wire"
)

// Bounds on what an agent reports for the probe and the Servers page.
const (
	// MaxPorts is the most ports an instance's report keeps (the rest are
	// dropped with a note).
	MaxPorts = 32
	// maxBuild is the longest build id kept (Steam's are ~8 digits).
	maxBuild = 64
)

// saneAddress keeps the host's public address only when it is an IP
// address or a DNS name without a port; anything else is dropped with a
// note (the probe then tries nothing).
func saneAddress(h *wire.HostInfo, note func(string, ...any)) {
	a := h.PublicAddress
	if a == "" || wire.ValidHostAddress(a) {
		return
	}
	note("public address %.80q", a)
	h.PublicAddress = ""
}

// saneProvision keeps an instance report's declared ports that can be
// (a port name, tcp or udp, 1-65535, each name once, at most MaxPorts) and
// build ids that are short printable text; the rest is dropped with a
// note.
func saneProvision(in *wire.InstanceReport, note func(string, ...any)) {
	if len(in.Ports) > 0 {
		kept := make([]wire.BoundPortInfo, 0, min(len(in.Ports), MaxPorts))
		seen := make(map[string]bool, len(in.Ports))
		for _, p := range in.Ports {
			switch {
			case len(kept) == MaxPorts:
				note("%s declares more than %d ports", in.ID, MaxPorts)
				in.Ports = kept
				return
			case !wire.ValidPortName(p.Name) || seen[p.Name] || (p.Protocol != wire.PortTCP && p.Protocol != wire.PortUDP) ||
				p.Port < 1 || p.Port > 65535:
				note("%s port %.40q %.10q %d", in.ID, p.Name, p.Protocol, p.Port)
				continue
			}
			seen[p.Name] = true
			kept = append(kept, p)
		}
		in.Ports = kept
	}
	for _, b := range []*string{&in.Build, &in.AvailableBuild} {
		if *b != "" && !saneBuild(*b) {
			note("%s build %.40q", in.ID, *b)
			*b = ""
		}
	}
}

// saneBuild: printable UTF-8 of at most maxBuild bytes.
func saneBuild(s string) bool {
	if len(s) > maxBuild || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
