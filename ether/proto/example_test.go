package proto_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/corrosion/corrosion/ether/proto"
)

// The ether's read loop: one buffer and one Decoder for the connection, so
// reading and decoding allocate nothing; a bad frame is dropped and the
// loop goes on.
func Example_readLoop() {
	var conn bytes.Buffer // stands in for the world's TCP connection
	_ = proto.WriteFrame(&conn, proto.WorldRegister{NodeID: 10})
	_ = proto.WriteFrame(&conn, proto.LoginCheck{User37: 42})
	conn.Write([]byte{0x00, 0x01, 0x14}) // opcode 20: not in the table
	_ = proto.WriteFrame(&conn, &proto.PlayerLogin{User37: 42, PID: 1})

	r := bufio.NewReader(&conn)
	buf := make([]byte, 0, proto.MaxPayload)
	var dec proto.Decoder
	for {
		var err error
		buf, err = proto.ReadFrame(r, buf)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Println("read:", err)
			}
			return
		}
		msg, err := dec.DecodeInbound(buf)
		if err != nil {
			fmt.Println("drop:", err)
			continue
		}
		switch m := msg.(type) {
		case *proto.WorldRegister:
			fmt.Println("world", m.NodeID)
		case *proto.LoginCheck:
			fmt.Println("login check", m.User37)
		case *proto.PlayerLogin:
			fmt.Println("login", m.User37, "pid", m.PID)
		}
	}
	// Output:
	// world 10
	// login check 42
	// drop: decode inbound: opcode 20: proto: unknown opcode
	// login 42 pid 1
}

// A world dials its ether and presents its link token before anything
// else; with an empty token (no RS_LINK_TOKEN) WriteLinkAuth writes nothing.
func ExampleWriteLinkAuth() {
	var conn bytes.Buffer // stands in for the world's new TCP connection
	if err := proto.WriteLinkAuth(&conn, "s3cret"); err != nil {
		fmt.Println(err)
		return
	}
	_ = proto.WriteFrame(&conn, proto.WorldRegister{NodeID: 10})
	fmt.Printf("% x\n", conn.Bytes())
	// Output: 00 07 0f 73 33 63 72 65 74 00 02 00 0a
}

func ExampleAppendFrame() {
	frame, err := proto.AppendFrame(nil, proto.LoginCheckResponse{User37: 42, Allowed: true})
	fmt.Printf("% x %v\n", frame, err)
	// Output: 00 0a 86 00 00 00 00 00 00 00 2a 01 <nil>
}
