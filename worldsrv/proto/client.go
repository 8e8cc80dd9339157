package proto

// Client → world messages. Sizes are payload sizes, opcode included; the
// client table (table.go) holds each message's row. The string fields of a
// message a Decoder returns alias the payload (see Decoder).

// Login (1) must be a connection's first frame: username str8, password
// str8. 3–513 bytes. The codec only checks the framing and UTF-8; the
// world checks the name (ValidName) and the password.
type Login struct {
	Username string
	Password string
}

// Logout (2) asks the world to save the player and close. 1 byte.
type Logout struct{}

// FriendAdd (3): name str8. 2–257 bytes.
type FriendAdd struct{ Name string }

// FriendDel (4): name str8. 2–257 bytes.
type FriendDel struct{ Name string }

// IgnoreAdd (5): name str8. 2–257 bytes.
type IgnoreAdd struct{ Name string }

// IgnoreDel (6): name str8. 2–257 bytes.
type IgnoreDel struct{ Name string }

// PrivateMessage (7): name str8 (the recipient), then text (the rest of
// the frame, 1–MaxText bytes of UTF-8). 3–337 bytes.
type PrivateMessage struct {
	Name string
	Text string
}

// ChatSettings (8) sets the player's chat modes: public u8, private u8,
// trade u8, each a ChatMode (0–2). 4 bytes.
type ChatSettings struct {
	Public, Private, Trade ChatMode
}

// Keepalive (9) keeps a quiet connection open. 1 byte.
type Keepalive struct{}

// Walk (10) sets the tile the player walks toward: x u16, y u16. 5 bytes.
type Walk struct{ X, Y uint16 }

func (Login) Op() ClientOp          { return OpLogin }
func (Logout) Op() ClientOp         { return OpLogout }
func (FriendAdd) Op() ClientOp      { return OpFriendAdd }
func (FriendDel) Op() ClientOp      { return OpFriendDel }
func (IgnoreAdd) Op() ClientOp      { return OpIgnoreAdd }
func (IgnoreDel) Op() ClientOp      { return OpIgnoreDel }
func (PrivateMessage) Op() ClientOp { return OpPrivateMessage }
func (ChatSettings) Op() ClientOp   { return OpChatSettings }
func (Keepalive) Op() ClientOp      { return OpKeepalive }
func (Walk) Op() ClientOp           { return OpWalk }

// AppendPayload cuts a username or password over MaxStr8 bytes (see
// appendStr8); such a name is invalid anyway.
func (m Login) AppendPayload(b []byte) []byte {
	return appendStr8(appendStr8(append(b, byte(OpLogin)), m.Username), m.Password)
}

func (Logout) AppendPayload(b []byte) []byte { return append(b, byte(OpLogout)) }

func (m FriendAdd) AppendPayload(b []byte) []byte { return appendName(b, OpFriendAdd, m.Name) }
func (m FriendDel) AppendPayload(b []byte) []byte { return appendName(b, OpFriendDel, m.Name) }
func (m IgnoreAdd) AppendPayload(b []byte) []byte { return appendName(b, OpIgnoreAdd, m.Name) }
func (m IgnoreDel) AppendPayload(b []byte) []byte { return appendName(b, OpIgnoreDel, m.Name) }

// AppendPayload writes Text as it is: a client keeps it to 1–MaxText
// bytes, or the world refuses the frame (ErrTextLength) and disconnects.
func (m PrivateMessage) AppendPayload(b []byte) []byte {
	return append(appendName(b, OpPrivateMessage, m.Name), m.Text...)
}

func (m ChatSettings) AppendPayload(b []byte) []byte {
	return append(b, byte(OpChatSettings), byte(m.Public), byte(m.Private), byte(m.Trade))
}

func (Keepalive) AppendPayload(b []byte) []byte { return append(b, byte(OpKeepalive)) }

func (m Walk) AppendPayload(b []byte) []byte {
	return be.AppendUint16(be.AppendUint16(append(b, byte(OpWalk)), m.X), m.Y)
}

// The decode methods take the whole payload, opcode first, whose opcode
// and length the table has checked, and fill the receiver; on error they
// leave it as it was.

func (m *Login) decode(p []byte) (ClientMessage, error) {
	user, off, err := readStr8(p, 1, "username")
	if err != nil {
		return nil, err
	}
	pass, end, err := readStr8(p, off, "password")
	if err != nil {
		return nil, err
	}
	if end != len(p) {
		return nil, trailingError(p, end)
	}
	m.Username, m.Password = user, pass
	return m, nil
}

func (m *Logout) decode([]byte) (ClientMessage, error) { return m, nil }

func (m *FriendAdd) decode(p []byte) (ClientMessage, error) { return decodeName(m, &m.Name, p) }
func (m *FriendDel) decode(p []byte) (ClientMessage, error) { return decodeName(m, &m.Name, p) }
func (m *IgnoreAdd) decode(p []byte) (ClientMessage, error) { return decodeName(m, &m.Name, p) }
func (m *IgnoreDel) decode(p []byte) (ClientMessage, error) { return decodeName(m, &m.Name, p) }

func (m *PrivateMessage) decode(p []byte) (ClientMessage, error) {
	name, off, err := readStr8(p, 1, "name")
	if err != nil {
		return nil, err
	}
	if n := len(p) - off; n < 1 || n > MaxText {
		return nil, textLengthError(n)
	}
	text, err := readRest(p, off, "text")
	if err != nil {
		return nil, err
	}
	m.Name, m.Text = name, text
	return m, nil
}

func (m *ChatSettings) decode(p []byte) (ClientMessage, error) {
	pub, priv, trade, err := readModes(p)
	if err != nil {
		return nil, err
	}
	m.Public, m.Private, m.Trade = pub, priv, trade
	return m, nil
}

func (m *Keepalive) decode([]byte) (ClientMessage, error) { return m, nil }

func (m *Walk) decode(p []byte) (ClientMessage, error) {
	m.X, m.Y = be.Uint16(p[1:]), be.Uint16(p[3:])
	return m, nil
}
