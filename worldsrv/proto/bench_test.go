package proto

import (
	"bytes"
	"testing"
)

// The world decodes what every client sends (Walk and Keepalive most) and
// encodes Position and Nearby for every player each tick; these measure
// those paths and the rest for comparison.

func BenchmarkDecoder_DecodeClient(b *testing.B) {
	for _, name := range []string{"Walk", "Keepalive", "PrivateMessage-80", "Login"} {
		p := vectorPayload(clientVectors, name)
		b.Run(name, func(b *testing.B) {
			var d Decoder
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.DecodeClient(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecoder_DecodeWorld(b *testing.B) {
	for _, name := range []string{"Position", "PrivateMessageIn", "Nearby-2", "Nearby-255"} {
		p := vectorPayload(worldVectors, name)
		b.Run(name, func(b *testing.B) {
			var d Decoder
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.DecodeWorld(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAppendFrame(b *testing.B) {
	for _, name := range []string{"Position", "FriendStatus", "PrivateMessageIn", "Nearby-2", "Nearby-255"} {
		m := vectorMessage(worldVectors, name)
		b.Run(name, func(b *testing.B) {
			buf := make([]byte, 0, MaxFrame)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = AppendFrame(buf[:0], m); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}

func BenchmarkReadFrame(b *testing.B) {
	s, payloads := stream()
	r := bytes.NewReader(s)
	buf := make([]byte, 0, MaxPayload)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(s)
		for range payloads {
			var err error
			if buf, err = ReadFrame(r, buf); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkEncodeName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeName("iron_man"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendName(b *testing.B) {
	buf := make([]byte, 0, MaxNameLen)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendName(buf[:0], 901636385016)
	}
}

func vectorPayload(vs []vector, name string) []byte {
	for _, v := range vs {
		if v.name == name {
			return v.payload
		}
	}
	panic("no vector " + name)
}

func vectorMessage(vs []vector, name string) Message {
	for _, v := range vs {
		if v.name == name {
			return v.msg
		}
	}
	panic("no vector " + name)
}
