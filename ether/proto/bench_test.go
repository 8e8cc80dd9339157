package proto

import (
	"bytes"
	"testing"
)

// benchMessages is one typical message per opcode, in opcode order.
var benchMessages = []Message{
	WorldRegister{NodeID: 10},
	PlayerLogin{User37: 0x0123456789abcdef, PID: 42},
	PlayerLogout{User37: 0x0123456789abcdef},
	FriendAdd{Owner37: 1, Friend37: 2},
	FriendDel{Owner37: 1, Friend37: 2},
	IgnoreAdd{Owner37: 1, Ignore37: 2},
	IgnoreDel{Owner37: 1, Ignore37: 2},
	PrivateMessage{Sender37: 1, Target37: 2, Level: 0, Body: bytes.Repeat([]byte{'a'}, 40)},
	RequestLists{User37: 1},
	ChatModeUpdate{User37: 1, PrivateMode: 1},
	PlayerSaveRequest{User37: 1, SaveData: bytes.Repeat([]byte{'s'}, 1024)},
	PlayerLoadRequest{User37: 1},
	PlayerResync{User37: 1, PID: 42, PrivateMode: 2},
	LoginCheck{User37: 1},
	RefreshAll{},
	LinkAuth{Token: bytes.Repeat([]byte{'t'}, 32)},
	UpdateFriendList{Target37: 1, Friend37: 2, Node: 11},
	UpdateIgnoreList{Target37: 1, Ignores: []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
	MessagePrivate{Recipient37: 1, Sender37: 2, MsgID: 7, Level: 0, Body: bytes.Repeat([]byte{'a'}, 40)},
	FriendListComplete{Target37: 1},
	PlayerLoadResponse{User37: 1, SaveData: bytes.Repeat([]byte{'s'}, 1024)},
	PlayerSaveAck{User37: 1, Success: true},
	LoginCheckResponse{User37: 1, Allowed: true},
}

var (
	sinkMsg Message
	sinkU64 uint64
)

func reportFrames(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkDecode decodes one frame held in memory: the length from its
// header, then the payload with a Decoder of the frame's direction.
func BenchmarkDecode(b *testing.B) {
	for _, m := range benchMessages {
		b.Run(m.Op().String(), func(b *testing.B) {
			frame, err := AppendFrame(nil, m)
			if err != nil {
				b.Fatal(err)
			}
			var d Decoder
			decode := d.DecodeInbound
			if m.Op().Outbound() {
				decode = d.DecodeOutbound
			}
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				n := int(be.Uint16(frame))
				msg, err := decode(frame[HeaderLen : HeaderLen+n])
				if err != nil {
					b.Fatal(err)
				}
				sinkMsg = msg
			}
			reportFrames(b)
		})
	}
}

// BenchmarkDecodeBaseline is the floor any decoder could reach on the same
// bytes as BenchmarkDecode/PlayerLogin: read the u16 length and one
// big-endian u64 with encoding/binary, and nothing else.
func BenchmarkDecodeBaseline(b *testing.B) {
	frame, err := AppendFrame(nil, PlayerLogin{User37: 0x0123456789abcdef, PID: 42})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		n := be.Uint16(frame)
		sinkU64 += uint64(n) + be.Uint64(frame[HeaderLen+1:])
	}
	reportFrames(b)
}

// BenchmarkDecodeAlloc is the package-level Decode, which allocates the
// message, for comparison with BenchmarkDecode.
func BenchmarkDecodeAlloc(b *testing.B) {
	for _, m := range benchMessages {
		b.Run(m.Op().String(), func(b *testing.B) {
			payload := m.AppendPayload(nil)
			b.SetBytes(int64(HeaderLen + len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				msg, err := Decode(payload)
				if err != nil {
					b.Fatal(err)
				}
				sinkMsg = msg
			}
			reportFrames(b)
		})
	}
}

// BenchmarkEncode frames one message into a reused buffer.
func BenchmarkEncode(b *testing.B) {
	for _, m := range benchMessages {
		b.Run(m.Op().String(), func(b *testing.B) {
			buf := make([]byte, 0, HeaderLen+MaxPayload)
			b.SetBytes(int64(HeaderLen + len(m.AppendPayload(nil))))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = AppendFrame(buf[:0], m); err != nil {
					b.Fatal(err)
				}
			}
			reportFrames(b)
		})
	}
}

// BenchmarkReadDecode is the ether's read loop over a stream of every
// fixed-size inbound frame: ReadFrame from a reader, then a Decoder.
func BenchmarkReadDecode(b *testing.B) {
	var stream []byte
	for _, m := range benchMessages {
		if _, fixed := fixedSizes[m.Op()]; fixed && m.Op().Inbound() {
			stream, _ = AppendFrame(stream, m)
		}
	}
	r := bytes.NewReader(stream)
	buf := make([]byte, 0, HeaderLen+MaxPayload)
	var d Decoder
	frames := 0
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(stream)
		for r.Len() > 0 {
			var err error
			if buf, err = ReadFrame(r, buf); err != nil {
				b.Fatal(err)
			}
			if sinkMsg, err = d.DecodeInbound(buf); err != nil {
				b.Fatal(err)
			}
			frames++
		}
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
}
