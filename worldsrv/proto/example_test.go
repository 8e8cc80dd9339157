package proto_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// A world's read loop over one client connection: one buffer and one
// Decoder per connection, so reading and decoding allocate nothing. Any
// error closes the connection.
func Example_readLoop() {
	// What a client sends: Login, Walk, Logout.
	var conn bytes.Buffer
	for _, m := range []proto.Message{
		proto.Login{Username: "Zezima", Password: "secret"},
		proto.Walk{X: 12, Y: 34},
		proto.Logout{},
	} {
		_ = proto.WriteFrame(&conn, m)
	}

	r := bufio.NewReader(&conn)
	buf := make([]byte, 0, proto.MaxPayload)
	var d proto.Decoder
	for {
		var err error
		if buf, err = proto.ReadFrame(r, buf); err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Println("close:", err)
			}
			return
		}
		m, err := d.DecodeClient(buf)
		if err != nil {
			fmt.Println("close:", err)
			return
		}
		switch m := m.(type) {
		case *proto.Login:
			// m.Username aliases buf: clone what outlives this frame.
			name := strings.Clone(m.Username)
			id, err := proto.EncodeName(name)
			fmt.Println("login", proto.DecodeName(id), id, err)
		case *proto.Walk:
			fmt.Println("walk to", m.X, m.Y)
		default:
			fmt.Println(m.Op())
		}
	}
	// Output:
	// login Zezima 1813643468 <nil>
	// walk to 12 34
	// Logout
}

// What a client reads after logging in, here decoded from the frames a
// world would write.
func ExampleDecoder_DecodeWorld() {
	var frames []byte
	for _, m := range []proto.WorldMessage{
		proto.LoginResponse{Code: proto.LoginOK, PID: 1, Node: 10},
		proto.MapInfo{Seed: 42, Biome: 2, Width: 256, Height: 256},
		proto.Position{X: 128, Y: 130},
		proto.LoginResponse{Code: proto.LoginWorldFull},
	} {
		frames, _ = proto.AppendFrame(frames, m)
	}
	r := bytes.NewReader(frames)
	var d proto.Decoder
	for {
		p, err := proto.ReadFrame(r, nil)
		if err != nil {
			return
		}
		m, _ := d.DecodeWorld(p)
		fmt.Printf("%v %+v\n", m.Op(), m)
	}
	// Output:
	// LoginResponse &{Code:success PID:1 Node:10}
	// MapInfo &{Seed:42 Biome:2 Width:256 Height:256}
	// Position &{X:128 Y:130}
	// LoginResponse &{Code:world is full PID:0 Node:0}
}
