package proto

import (
	"bytes"
	"encoding/hex"
	"strings"
)

// Compile-time guards: every message type is a message of its direction
// as T and as *T.
var (
	_ ClientMessage = Login{}
	_ ClientMessage = Logout{}
	_ ClientMessage = FriendAdd{}
	_ ClientMessage = FriendDel{}
	_ ClientMessage = IgnoreAdd{}
	_ ClientMessage = IgnoreDel{}
	_ ClientMessage = PrivateMessage{}
	_ ClientMessage = ChatSettings{}
	_ ClientMessage = Keepalive{}
	_ ClientMessage = Walk{}
	_ ClientMessage = (*Login)(nil)
	_ ClientMessage = (*Walk)(nil)

	_ WorldMessage = LoginResponse{}
	_ WorldMessage = FriendStatus{}
	_ WorldMessage = IgnoreList{}
	_ WorldMessage = PrivateMessageIn{}
	_ WorldMessage = FriendListLoaded{}
	_ WorldMessage = ChatSettingsNow{}
	_ WorldMessage = SystemMessage{}
	_ WorldMessage = LoggedOut{}
	_ WorldMessage = MapInfo{}
	_ WorldMessage = Position{}
	_ WorldMessage = Nearby{}
	_ WorldMessage = (*LoginResponse)(nil)
	_ WorldMessage = (*Nearby)(nil)
)

// hx decodes a hex literal; spaces and "|" only separate fields for the reader.
func hx(s string) []byte {
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "", "\n", "", "\t", "").Replace(s))
	if err != nil {
		panic(err)
	}
	return b
}

// cat concatenates byte slices.
func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// vector is a message and its payload, written out by hand from the
// protocol document.
type vector struct {
	name    string
	payload []byte
	msg     Message // a ClientMessage in clientVectors, a WorldMessage in worldVectors
}

// Hand-made values for the boundary cases.
var (
	text80    = strings.Repeat("0123456789", 8) // the longest PrivateMessage text
	name255   = strings.Repeat("n", MaxStr8)    // the longest str8
	utf8Text  = "héllo ✓"                       // 2- and 3-byte characters: 10 bytes
	utf8Bytes = hx("68 c3a9 6c 6c 6f 20 e29c93")

	ignores3      = []uint64{1, 1813643468, MaxName37}
	ignores3Bytes = hx("0000000000000001 | 000000006c1a00cc | 5b5b57f8a98a5dd0")

	nearby2      = []NearbyPlayer{{PID: 7, Name37: 3295, X: 100, Y: 200}, {PID: 0xffff, Name37: MaxName37, X: 0xffff, Y: 0}}
	nearby2Bytes = hx("0007 0000000000000cdf 0064 00c8 | ffff 5b5b57f8a98a5dd0 ffff 0000")
)

// clientVectors covers every client → world message.
var clientVectors = []vector{
	{"Login", hx("01 | 06 7a657a696d61 | 06 736563726574"), Login{Username: "zezima", Password: "secret"}},
	{"Login-utf8-password", cat(hx("01 | 03 626f62 | 0a"), utf8Bytes), Login{Username: "bob", Password: utf8Text}},
	{"Login-empty-fields", hx("01 00 00"), Login{}},
	{"Login-max", cat(hx("01 ff"), []byte(name255), hx("ff"), []byte(name255)), Login{Username: name255, Password: name255}},
	{"Logout", hx("02"), Logout{}},
	{"FriendAdd", hx("03 | 08 69726f6e5f6d616e"), FriendAdd{Name: "iron_man"}},
	{"FriendAdd-max", cat(hx("03 ff"), []byte(name255)), FriendAdd{Name: name255}},
	{"FriendDel", hx("04 | 03 626f62"), FriendDel{Name: "bob"}},
	{"FriendDel-empty", hx("04 00"), FriendDel{}},
	{"IgnoreAdd", hx("05 | 03 4d6f64"), IgnoreAdd{Name: "Mod"}},
	{"IgnoreDel", hx("06 | 03 612062"), IgnoreDel{Name: "a b"}},
	{"PrivateMessage", hx("07 | 03 626f62 | 6869"), PrivateMessage{Name: "bob", Text: "hi"}},
	{"PrivateMessage-1", hx("07 | 00 | 21"), PrivateMessage{Text: "!"}},
	{"PrivateMessage-80", cat(hx("07 | 03 626f62"), []byte(text80)), PrivateMessage{Name: "bob", Text: text80}},
	{"PrivateMessage-utf8", cat(hx("07 | 03 626f62"), utf8Bytes), PrivateMessage{Name: "bob", Text: utf8Text}},
	{"PrivateMessage-max", cat(hx("07 ff"), []byte(name255), []byte(text80)), PrivateMessage{Name: name255, Text: text80}},
	{"ChatSettings", hx("08 | 00 | 01 | 02"), ChatSettings{Public: ChatOn, Private: ChatFriends, Trade: ChatOff}},
	{"ChatSettings-off", hx("08 020202"), ChatSettings{Public: ChatOff, Private: ChatOff, Trade: ChatOff}},
	{"Keepalive", hx("09"), Keepalive{}},
	{"Walk", hx("0a | 0102 | 0304"), Walk{X: 0x0102, Y: 0x0304}},
	{"Walk-max", hx("0a ffff ffff"), Walk{X: 0xffff, Y: 0xffff}},
}

// worldVectors covers every world → client message.
var worldVectors = []vector{
	{"LoginResponse-ok", hx("01 | 02 | 0102 | 0a"), LoginResponse{Code: LoginOK, PID: 0x0102, Node: 10}},
	{"LoginResponse-bad-credentials", hx("01 03"), LoginResponse{Code: LoginBadCredentials}},
	{"LoginResponse-already-online", hx("01 05"), LoginResponse{Code: LoginAlreadyOnline}},
	{"LoginResponse-full", hx("01 07"), LoginResponse{Code: LoginWorldFull}},
	{"LoginResponse-server-offline", hx("01 08"), LoginResponse{Code: LoginServerOffline}},
	{"LoginResponse-too-many", hx("01 09"), LoginResponse{Code: LoginTooManyConnections}},
	{"LoginResponse-could-not-complete", hx("01 0d"), LoginResponse{Code: LoginCouldNotComplete}},
	{"LoginResponse-shutting-down", hx("01 0e"), LoginResponse{Code: LoginShuttingDown}},
	{"LoginResponse-unknown-code", hx("01 ff"), LoginResponse{Code: 255}},
	{"FriendStatus", hx("02 | 000000006c1a00cc | 0b"), FriendStatus{Name37: 1813643468, Node: 11}},
	{"FriendStatus-offline", hx("02 | 000000d1edb768f8 | 00"), FriendStatus{Name37: 901636385016}},
	{"IgnoreList-0", hx("03 0000"), IgnoreList{}},
	{"IgnoreList-3", cat(hx("03 0003"), ignores3Bytes), IgnoreList{Names37: ignores3}},
	{"PrivateMessageIn", hx("04 | 0000000000000cdf | 00000001 | 00 | 6869"), PrivateMessageIn{From37: 3295, MsgID: 1, Text: "hi"}},
	{"PrivateMessageIn-admin", cat(hx("04 | 000001285d7604fb | ffffffff | 02"), utf8Bytes), PrivateMessageIn{From37: 1272878335227, MsgID: -1, Level: LevelAdmin, Text: utf8Text}},
	{"PrivateMessageIn-msgid-min", hx("04 | 0000000000000001 | 80000000 | 01 | 2a"), PrivateMessageIn{From37: 1, MsgID: -1 << 31, Level: LevelModerator, Text: "*"}},
	{"FriendListLoaded", hx("05"), FriendListLoaded{}},
	{"ChatSettingsNow", hx("06 | 02 | 00 | 01"), ChatSettingsNow{Public: ChatOff, Private: ChatOn, Trade: ChatFriends}},
	{"SystemMessage", cat(hx("07"), []byte("That player is currently offline.")), SystemMessage{Text: "That player is currently offline."}},
	{"SystemMessage-empty", hx("07"), SystemMessage{}},
	{"LoggedOut-requested", hx("08 00"), LoggedOut{Reason: LogoutRequested}},
	{"LoggedOut-kicked", hx("08 01"), LoggedOut{Reason: LogoutKicked}},
	{"LoggedOut-shutdown", hx("08 02"), LoggedOut{Reason: LogoutShutdown}},
	{"LoggedOut-idle", hx("08 03"), LoggedOut{Reason: LogoutIdle}},
	{"MapInfo", hx("09 | 0123456789abcdef | 04 | 0100 | 0080"), MapInfo{Seed: 0x0123456789abcdef, Biome: 4, Width: 256, Height: 128}},
	{"Position", hx("0a | 0064 | 00c8"), Position{X: 100, Y: 200}},
	{"Nearby-0", hx("0b 0000"), Nearby{}},
	{"Nearby-2", cat(hx("0b 0002"), nearby2Bytes), Nearby{Players: nearby2}},
	{"Nearby-255", nearbyPayload(MaxNearby), Nearby{Players: nearbyPlayers(MaxNearby)}},
}

// nearbyPlayers returns n entries whose fields all derive from the index.
func nearbyPlayers(n int) []NearbyPlayer {
	ps := make([]NearbyPlayer, n)
	for i := range ps {
		ps[i] = NearbyPlayer{PID: uint16(i), Name37: uint64(i) << 32, X: uint16(i), Y: uint16(1000 + i)}
	}
	return ps
}

// nearbyPayload is the Nearby payload of nearbyPlayers(n), written field
// by field with the byte layout of the protocol document.
func nearbyPayload(n int) []byte {
	p := []byte{0x0b, byte(n >> 8), byte(n)}
	for i := range n {
		y := 1000 + i
		p = append(p, byte(i>>8), byte(i))                                       // pid
		p = append(p, byte(i>>24), byte(i>>16), byte(i>>8), byte(i), 0, 0, 0, 0) // name37
		p = append(p, byte(i>>8), byte(i), byte(y>>8), byte(y))                  // x, y
	}
	return p
}
