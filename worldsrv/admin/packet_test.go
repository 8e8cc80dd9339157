package admin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

// raw builds a packet with an arbitrary size field and tail.
func raw(size int32, tail []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(size))
	return append(b, tail...)
}

func TestPacketReader(t *testing.T) {
	good := appendPacket(nil, 7, typeExecCommand, "status")
	cases := []struct {
		name    string
		in      []byte
		want    packet
		wantErr error
	}{
		{"command", good, packet{id: 7, typ: typeExecCommand, body: []byte("status")}, nil},
		{"empty probe", appendPacket(nil, -3, typeResponseValue, ""), packet{id: -3, typ: typeResponseValue, body: []byte{}}, nil},
		{"largest body", appendPacket(nil, 1, typeExecCommand, strings.Repeat("a", MaxBodyBytes)), packet{id: 1, typ: typeExecCommand, body: []byte(strings.Repeat("a", MaxBodyBytes))}, nil},
		{"empty stream", nil, packet{}, io.EOF},
		{"cut in the size", good[:2], packet{}, io.ErrUnexpectedEOF},
		{"cut in the body", good[:len(good)-1], packet{}, io.ErrUnexpectedEOF},
		{"size below minimum", raw(9, make([]byte, 9)), packet{}, ErrMalformed},
		{"zero size", raw(0, nil), packet{}, ErrMalformed},
		{"negative size", raw(-1, nil), packet{}, ErrMalformed},
		{"most negative size", raw(-1<<31, nil), packet{}, ErrMalformed},
		{"size over 4096", raw(MaxPacketSize+1, nil), packet{}, ErrMalformed},
		{"huge size", raw(1<<31-1, nil), packet{}, ErrMalformed},
		{"no terminators", raw(10, []byte{1, 0, 0, 0, 2, 0, 0, 0, 'a', 'b'}), packet{}, ErrMalformed},
		{"one terminator", raw(11, []byte{1, 0, 0, 0, 2, 0, 0, 0, 'a', 'b', 0}), packet{}, ErrMalformed},
		{"NUL inside", raw(12, []byte{1, 0, 0, 0, 2, 0, 0, 0, 'a', 0, 0, 0}), packet{}, ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := newPacketReader(bytes.NewReader(tc.in)).next()
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("next() error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || got.id != tc.want.id || got.typ != tc.want.typ || !bytes.Equal(got.body, tc.want.body) {
				t.Fatalf("next() = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestAppendReply_Splits(t *testing.T) {
	text := strings.Repeat("0123456789", 1000) // 10,000 bytes: 3 packets
	b := appendReply(nil, 42, text)
	pr := newPacketReader(bytes.NewReader(b))
	var got strings.Builder
	for n := 0; ; n++ {
		p, err := pr.next()
		if err == io.EOF {
			if n != 3 {
				t.Fatalf("%d packets, want 3", n)
			}
			break
		}
		if err != nil || p.id != 42 || p.typ != typeResponseValue || len(p.body) > MaxBodyBytes {
			t.Fatalf("packet %d: %+v, %v", n, p, err)
		}
		got.Write(p.body)
	}
	if got.String() != text {
		t.Fatal("reassembled reply differs")
	}
	if e := appendReply(nil, 1, ""); !bytes.Equal(e, appendPacket(nil, 1, typeResponseValue, "")) {
		t.Fatalf("empty reply = %x, want one empty packet", e)
	}
}

// FuzzPacketReader: any input decodes to packets or a clean error, never a
// panic, and every packet decoded re-encodes to the bytes it came from.
// Seeds live in testdata/fuzz/FuzzPacketReader.
func FuzzPacketReader(f *testing.F) {
	f.Add(appendPacket(nil, 1, typeAuth, "password"))
	f.Add(append(appendPacket(nil, 2, typeExecCommand, "status"), appendPacket(nil, 3, typeResponseValue, "")...))
	f.Fuzz(func(t *testing.T, data []byte) {
		pr := newPacketReader(bytes.NewReader(data))
		off := 0
		for {
			p, err := pr.next()
			if err != nil {
				if err != io.EOF && err != io.ErrUnexpectedEOF && !errors.Is(err, ErrMalformed) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				return
			}
			enc := appendPacket(nil, p.id, p.typ, string(p.body))
			if off+len(enc) > len(data) || !bytes.Equal(enc, data[off:off+len(enc)]) {
				t.Fatalf("packet %+v does not re-encode to its input at offset %d", p, off)
			}
			off += len(enc)
		}
	})
}
