// Package a2s is Valve's Source server query A2S_INFO over UDP: the
// request, the S2C_CHALLENGE answer, and a strict decoder of the info
// reply. The panel's inbound probe asks a Steam game server through it
// whether players can reach it, and how many are on; the agent may use it
// the same way. Reference: https://developer.valvesoftware.com/wiki/Server_queries
package a2s

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Packet headers and types.
const (
	headerSingle = 0xFFFFFFFF // -1 LE: a whole reply in one packet
	headerSplit  = 0xFFFFFFFE // -2 LE: one part of a multi-packet reply

	typeInfoRequest   = 0x54 // 'T': A2S_INFO
	typeChallenge     = 0x41 // 'A': S2C_CHALLENGE
	typeInfo          = 0x49 // 'I': the Source info reply
	typeGoldSourceOld = 0x6D // 'm': the obsolete GoldSource info reply
)

// MaxPacket is the largest reply packet accepted: Source servers send at
// most 1400 bytes per UDP packet and split anything longer.
const MaxPacket = 1400

// appTheShip is the app id whose info reply carries three extra bytes
// (mode, witnesses, duration) before the version.
const appTheShip = 2400

// Extra data flags of the info reply's EDF byte.
const (
	edfPort      = 0x80
	edfSteamID   = 0x10
	edfSpectator = 0x40
	edfKeywords  = 0x20
	edfGameID    = 0x01
)

// ErrMalformed marks a reply that is not a valid A2S packet.
var ErrMalformed = errors.New("a2s: malformed reply")

// ErrSplit marks a multi-packet reply, which an info query never needs and
// this client refuses.
var ErrSplit = errors.New("a2s: multi-packet reply refused")

// Info is an A2S_INFO reply.
type Info struct {
	Protocol    uint8
	Name        string
	Map         string
	Folder      string
	Game        string
	AppID       uint16
	Players     uint8
	MaxPlayers  uint8
	Bots        uint8
	ServerType  byte // 'd' dedicated, 'l' listen, 'p' SourceTV
	Environment byte // 'l' Linux, 'w' Windows, 'm'/'o' macOS
	Private     bool // visibility: a password is required
	VAC         bool
	// Ship holds The Ship's mode, witnesses and duration (AppID 2400 only).
	Ship    [3]byte
	Version string
	// EDF is the extra data flag byte; 0 when the reply has none. The
	// fields below are set only when their flag is.
	EDF           byte
	Port          uint16
	SteamID       uint64
	SpectatorPort uint16
	SpectatorName string
	Keywords      string
	GameID        uint64
}

// request is A2S_INFO's payload after the header.
const request = "Source Engine Query\x00"

// AppendRequest appends an A2S_INFO request to b, with challenge (4
// bytes) when the server asked for one, and returns the result.
func AppendRequest(b []byte, challenge []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, headerSingle)
	b = append(b, typeInfoRequest)
	b = append(b, request...)
	return append(b, challenge...)
}

// ParseRequest reads an A2S_INFO request and returns its challenge (nil
// when the request carries none). Test servers use it.
func ParseRequest(pkt []byte) (challenge []byte, err error) {
	d := decoder{b: pkt}
	if h := d.u32(); d.err == nil && h != headerSingle {
		return nil, fmt.Errorf("%w: header %08x, want ffffffff", ErrMalformed, h)
	}
	if t := d.u8(); d.err == nil && t != typeInfoRequest {
		return nil, fmt.Errorf("%w: type 0x%02x, want 0x54 (A2S_INFO)", ErrMalformed, t)
	}
	if s := d.str("payload"); d.err == nil && s+"\x00" != request {
		return nil, fmt.Errorf("%w: payload %q, want %q", ErrMalformed, s, request[:len(request)-1])
	}
	switch rest := len(d.b) - d.off; {
	case d.err != nil:
		return nil, d.err
	case rest == 0:
		return nil, nil
	case rest == 4:
		return append([]byte(nil), d.b[d.off:]...), nil
	default:
		return nil, fmt.Errorf("%w: %d bytes after the payload, want 0 or a 4-byte challenge", ErrMalformed, rest)
	}
}

// AppendChallenge appends an S2C_CHALLENGE reply carrying challenge.
func AppendChallenge(b []byte, challenge [4]byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, headerSingle)
	b = append(b, typeChallenge)
	return append(b, challenge[:]...)
}

// AppendInfo appends in as a single-packet info reply (the format Decode
// reads; test servers use it).
func AppendInfo(b []byte, in Info) []byte {
	b = binary.LittleEndian.AppendUint32(b, headerSingle)
	b = append(b, typeInfo, in.Protocol)
	for _, s := range []string{in.Name, in.Map, in.Folder, in.Game} {
		b = append(append(b, s...), 0)
	}
	b = binary.LittleEndian.AppendUint16(b, in.AppID)
	b = append(b, in.Players, in.MaxPlayers, in.Bots, in.ServerType, in.Environment, boolByte(in.Private), boolByte(in.VAC))
	if in.AppID == appTheShip {
		b = append(b, in.Ship[:]...)
	}
	b = append(append(b, in.Version...), 0)
	if in.EDF == 0 {
		return b
	}
	b = append(b, in.EDF)
	if in.EDF&edfPort != 0 {
		b = binary.LittleEndian.AppendUint16(b, in.Port)
	}
	if in.EDF&edfSteamID != 0 {
		b = binary.LittleEndian.AppendUint64(b, in.SteamID)
	}
	if in.EDF&edfSpectator != 0 {
		b = binary.LittleEndian.AppendUint16(b, in.SpectatorPort)
		b = append(append(b, in.SpectatorName...), 0)
	}
	if in.EDF&edfKeywords != 0 {
		b = append(append(b, in.Keywords...), 0)
	}
	if in.EDF&edfGameID != 0 {
		b = binary.LittleEndian.AppendUint64(b, in.GameID)
	}
	return b
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// Reply is a decoded reply packet: a challenge to answer, or the info.
type Reply struct {
	// Challenge is set for an S2C_CHALLENGE reply.
	Challenge []byte
	// Info is set for an info reply.
	Info *Info
}

// Decode reads one reply packet strictly: a single-packet header, a known
// type, every field present, strings NUL-terminated valid UTF-8 within the
// packet, no bytes left over. Any other packet is an error wrapping
// ErrMalformed (or ErrSplit) that says what is wrong; it never panics.
func Decode(pkt []byte) (Reply, error) {
	if len(pkt) > MaxPacket {
		return Reply{}, fmt.Errorf("%w: %d bytes, more than the %d of one packet", ErrMalformed, len(pkt), MaxPacket)
	}
	d := decoder{b: pkt}
	h := d.u32()
	if d.err != nil {
		return Reply{}, d.err
	}
	switch h {
	case headerSingle:
	case headerSplit:
		return Reply{}, ErrSplit
	default:
		return Reply{}, fmt.Errorf("%w: header %08x, want ffffffff", ErrMalformed, h)
	}
	t := d.u8()
	var r Reply
	switch {
	case d.err != nil:
		return Reply{}, d.err
	case t == typeChallenge:
		r.Challenge = append([]byte(nil), d.take(4, "challenge")...)
	case t == typeInfo:
		r.Info = d.info()
	case t == typeGoldSourceOld:
		return Reply{}, fmt.Errorf("%w: obsolete GoldSource info reply (0x6d)", ErrMalformed)
	default:
		return Reply{}, fmt.Errorf("%w: type 0x%02x, want 0x41 (challenge) or 0x49 (info)", ErrMalformed, t)
	}
	if d.err != nil {
		return Reply{}, d.err
	}
	if rest := len(d.b) - d.off; rest != 0 {
		return Reply{}, fmt.Errorf("%w: %d bytes after the last field", ErrMalformed, rest)
	}
	return r, nil
}

// decoder reads a packet front to back; the first error sticks and every
// later read returns zero values.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b)-d.off < n {
		d.err = fmt.Errorf("%w: truncated at byte %d: %s needs %d bytes, %d left", ErrMalformed, d.off, what, n, len(d.b)-d.off)
		return nil
	}
	v := d.b[d.off : d.off+n]
	d.off += n
	return v
}

func (d *decoder) u8() uint8 {
	if v := d.take(1, "a byte"); v != nil {
		return v[0]
	}
	return 0
}

func (d *decoder) u16(what string) uint16 {
	if v := d.take(2, what); v != nil {
		return binary.LittleEndian.Uint16(v)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if v := d.take(4, "the header"); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (d *decoder) u64(what string) uint64 {
	if v := d.take(8, what); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

// str reads a NUL-terminated UTF-8 string; a packet bounds its length.
func (d *decoder) str(what string) string {
	if d.err != nil {
		return ""
	}
	rest := d.b[d.off:]
	n := 0
	for n < len(rest) && rest[n] != 0 {
		n++
	}
	if n == len(rest) {
		d.err = fmt.Errorf("%w: %s at byte %d has no terminating NUL", ErrMalformed, what, d.off)
		return ""
	}
	if !utf8.Valid(rest[:n]) {
		d.err = fmt.Errorf("%w: %s at byte %d is not valid UTF-8", ErrMalformed, what, d.off)
		return ""
	}
	d.off += n + 1
	return string(rest[:n])
}

func (d *decoder) flag(what string) bool {
	switch v := d.u8(); {
	case d.err != nil:
		return false
	case v > 1:
		d.err = fmt.Errorf("%w: %s is %d, want 0 or 1", ErrMalformed, what, v)
		return false
	default:
		return v == 1
	}
}

// info reads the fields of an info reply after its type byte.
func (d *decoder) info() *Info {
	in := &Info{Protocol: d.u8()}
	in.Name = d.str("name")
	in.Map = d.str("map")
	in.Folder = d.str("folder")
	in.Game = d.str("game")
	in.AppID = d.u16("app id")
	in.Players = d.u8()
	in.MaxPlayers = d.u8()
	in.Bots = d.u8()
	in.ServerType = d.u8()
	in.Environment = d.u8()
	in.Private = d.flag("visibility")
	in.VAC = d.flag("vac")
	if in.AppID == appTheShip {
		copy(in.Ship[:], d.take(3, "the ship's mode, witnesses and duration"))
	}
	in.Version = d.str("version")
	if d.err != nil || d.off == len(d.b) {
		return in // no extra data
	}
	in.EDF = d.u8()
	if in.EDF&^(edfPort|edfSteamID|edfSpectator|edfKeywords|edfGameID) != 0 {
		d.err = fmt.Errorf("%w: extra data flags 0x%02x has unknown bits", ErrMalformed, in.EDF)
	}
	if in.EDF&edfPort != 0 {
		in.Port = d.u16("port")
	}
	if in.EDF&edfSteamID != 0 {
		in.SteamID = d.u64("steam id")
	}
	if in.EDF&edfSpectator != 0 {
		in.SpectatorPort = d.u16("spectator port")
		in.SpectatorName = d.str("spectator name")
	}
	if in.EDF&edfKeywords != 0 {
		in.Keywords = d.str("keywords")
	}
	if in.EDF&edfGameID != 0 {
		in.GameID = d.u64("game id")
	}
	return in
}
