package proto

import (
	"bytes"
	"encoding/hex"
	"math"
	"reflect"
	"strings"
)

// Compile-time guards: every message type is a Message as T and as *T.
var (
	_ Message = WorldRegister{}
	_ Message = PlayerLogin{}
	_ Message = PlayerLogout{}
	_ Message = FriendAdd{}
	_ Message = FriendDel{}
	_ Message = IgnoreAdd{}
	_ Message = IgnoreDel{}
	_ Message = PrivateMessage{}
	_ Message = RequestLists{}
	_ Message = ChatModeUpdate{}
	_ Message = PlayerSaveRequest{}
	_ Message = PlayerLoadRequest{}
	_ Message = PlayerResync{}
	_ Message = LoginCheck{}
	_ Message = RefreshAll{}
	_ Message = LinkAuth{}
	_ Message = WorldInfo{}
	_ Message = LinkChallenge{}
	_ Message = LinkProof{}
	_ Message = LoginRelease{}
	_ Message = FeatureQuery{}
	_ Message = Features{}
	_ Message = UpdateFriendList{}
	_ Message = UpdateIgnoreList{}
	_ Message = MessagePrivate{}
	_ Message = FriendListComplete{}
	_ Message = PlayerLoadResponse{}
	_ Message = PlayerSaveAck{}
	_ Message = LoginCheckResponse{}

	_ Message = (*WorldInfo)(nil)
	_ Message = (*WorldRegister)(nil)
	_ Message = (*PlayerLogin)(nil)
	_ Message = (*PlayerLogout)(nil)
	_ Message = (*FriendAdd)(nil)
	_ Message = (*FriendDel)(nil)
	_ Message = (*IgnoreAdd)(nil)
	_ Message = (*IgnoreDel)(nil)
	_ Message = (*PrivateMessage)(nil)
	_ Message = (*RequestLists)(nil)
	_ Message = (*ChatModeUpdate)(nil)
	_ Message = (*PlayerSaveRequest)(nil)
	_ Message = (*PlayerLoadRequest)(nil)
	_ Message = (*PlayerResync)(nil)
	_ Message = (*LoginCheck)(nil)
	_ Message = (*RefreshAll)(nil)
	_ Message = (*LinkAuth)(nil)
	_ Message = (*LinkChallenge)(nil)
	_ Message = (*LinkProof)(nil)
	_ Message = (*LoginRelease)(nil)
	_ Message = (*FeatureQuery)(nil)
	_ Message = (*Features)(nil)
	_ Message = (*UpdateFriendList)(nil)
	_ Message = (*UpdateIgnoreList)(nil)
	_ Message = (*MessagePrivate)(nil)
	_ Message = (*FriendListComplete)(nil)
	_ Message = (*PlayerLoadResponse)(nil)
	_ Message = (*PlayerSaveAck)(nil)
	_ Message = (*LoginCheckResponse)(nil)
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

const u64max = math.MaxUint64

// Hand-made payloads for the variable-size boundary cases.
var (
	body5000 = bytes.Repeat([]byte("0123456789"), 500) // 5000 bytes

	// ignores100 holds i<<56 | (255-i) for i = 1..100, and ignores100Bytes
	// the same written out byte by byte: i 00 00 00 00 00 00 255-i.
	ignores100 = func() []uint64 {
		s := make([]uint64, 100)
		for i := range s {
			s[i] = uint64(i+1)<<56 | uint64(255-(i+1))
		}
		return s
	}()
	ignores100Bytes = func() []byte {
		var b []byte
		for i := 1; i <= 100; i++ {
			b = append(b, byte(i), 0, 0, 0, 0, 0, 0, byte(255-i))
		}
		return b
	}()
)

// vector is one message and its payload, written out by hand from the seed's
// table. A vector round-trips both ways unless decodeOnly: then payload
// decodes to msg, but msg encodes to other (canonical) bytes.
type vector struct {
	name       string
	msg        Message
	payload    []byte
	decodeOnly bool
}

var vectors = []vector{
	// Inbound (world → ether).
	{name: "WorldRegister", msg: WorldRegister{NodeID: 10}, payload: hx("00 | 0a")},
	{name: "WorldRegister/max", msg: WorldRegister{NodeID: 255}, payload: hx("00 | ff")},
	{name: "WorldRegister/zero", msg: WorldRegister{}, payload: hx("00 | 00")},
	{name: "PlayerLogin", msg: PlayerLogin{User37: 0x0123456789abcdef, PID: 0x0102},
		payload: hx("01 | 0123456789abcdef | 0102")},
	{name: "PlayerLogin/max", msg: PlayerLogin{User37: u64max, PID: 0xffff},
		payload: hx("01 | ffffffffffffffff | ffff")},
	{name: "PlayerLogout", msg: PlayerLogout{User37: 1},
		payload: hx("02 | 0000000000000001")},
	{name: "PlayerLogout/max", msg: PlayerLogout{User37: u64max},
		payload: hx("02 | ffffffffffffffff")},
	{name: "FriendAdd", msg: FriendAdd{Owner37: 0x1122334455667788, Friend37: 0x99aabbccddeeff00},
		payload: hx("03 | 1122334455667788 | 99aabbccddeeff00")},
	{name: "FriendAdd/max", msg: FriendAdd{Owner37: u64max, Friend37: u64max},
		payload: hx("03 | ffffffffffffffff | ffffffffffffffff")},
	{name: "FriendDel", msg: FriendDel{Owner37: u64max, Friend37: 0},
		payload: hx("04 | ffffffffffffffff | 0000000000000000")},
	{name: "IgnoreAdd", msg: IgnoreAdd{Owner37: 0x0a0b0c0d0e0f1011, Ignore37: 2},
		payload: hx("05 | 0a0b0c0d0e0f1011 | 0000000000000002")},
	{name: "IgnoreDel", msg: IgnoreDel{Owner37: 3, Ignore37: u64max},
		payload: hx("06 | 0000000000000003 | ffffffffffffffff")},
	{name: "PrivateMessage", msg: PrivateMessage{Sender37: 1, Target37: 2, Level: 2, Body: []byte("hi")},
		payload: hx("07 | 0000000000000001 | 0000000000000002 | 02 | 6869")},
	{name: "PrivateMessage/empty", msg: PrivateMessage{Sender37: u64max, Target37: u64max, Level: 0},
		payload: hx("07 | ffffffffffffffff | ffffffffffffffff | 00")},
	{name: "PrivateMessage/5000", msg: PrivateMessage{Sender37: 0x0102030405060708, Target37: 9, Level: 1, Body: body5000},
		payload: cat(hx("07 | 0102030405060708 | 0000000000000009 | 01"), body5000)},
	{name: "RequestLists", msg: RequestLists{User37: 0x00000000deadbeef},
		payload: hx("08 | 00000000deadbeef")},
	{name: "ChatModeUpdate", msg: ChatModeUpdate{User37: 0x0102030405060708, PrivateMode: 2},
		payload: hx("09 | 0102030405060708 | 02")},
	{name: "ChatModeUpdate/max", msg: ChatModeUpdate{User37: u64max, PrivateMode: 255},
		payload: hx("09 | ffffffffffffffff | ff")},
	{name: "PlayerSaveRequest", msg: PlayerSaveRequest{User37: 7, SaveData: []byte{0x00, 0x01, 0xfe, 0xff}},
		payload: hx("0a | 0000000000000007 | 0001feff")},
	{name: "PlayerSaveRequest/empty", msg: PlayerSaveRequest{User37: u64max},
		payload: hx("0a | ffffffffffffffff")},
	{name: "PlayerLoadRequest", msg: PlayerLoadRequest{User37: 0x8000000000000000},
		payload: hx("0b | 8000000000000000")},
	{name: "PlayerResync", msg: PlayerResync{User37: 0x1000000000000001, PID: 2047, PrivateMode: 1},
		payload: hx("0c | 1000000000000001 | 07ff | 01")},
	{name: "PlayerResync/max", msg: PlayerResync{User37: u64max, PID: 0xffff, PrivateMode: 0xff},
		payload: hx("0c | ffffffffffffffff | ffff | ff")},
	{name: "LoginCheck", msg: LoginCheck{User37: 0x00000000000003e8},
		payload: hx("0d | 00000000000003e8")},
	{name: "LoginCheck/max", msg: LoginCheck{User37: u64max},
		payload: hx("0d | ffffffffffffffff")},
	{name: "RefreshAll", msg: RefreshAll{}, payload: hx("0e")},
	{name: "LinkAuth", msg: LinkAuth{Token: []byte("s3cret")}, payload: hx("0f | 733363726574")},
	{name: "LinkAuth/empty", msg: LinkAuth{}, payload: hx("0f")},
	{name: "LinkAuth/binary", msg: LinkAuth{Token: []byte{0x00, 0xff, 0x0f}}, payload: hx("0f | 00ff0f")},
	{name: "LinkChallenge", msg: LinkChallenge{Nonce: nonce32},
		payload: cat(hx("10"), nonce32[:])},
	{name: "LoginRelease", msg: LoginRelease{User37: 0x00000000000003e8},
		payload: hx("12 | 00000000000003e8")},
	{name: "LoginRelease/max", msg: LoginRelease{User37: u64max},
		payload: hx("12 | ffffffffffffffff")},
	{name: "FeatureQuery", msg: FeatureQuery{}, payload: hx("13")},

	// Outbound (ether → world).
	{name: "UpdateFriendList", msg: UpdateFriendList{Target37: 0x0102030405060708, Friend37: 0x1112131415161718, Node: 11},
		payload: hx("80 | 0102030405060708 | 1112131415161718 | 0b")},
	{name: "UpdateFriendList/offline", msg: UpdateFriendList{Target37: u64max, Friend37: u64max, Node: 0},
		payload: hx("80 | ffffffffffffffff | ffffffffffffffff | 00")},
	{name: "UpdateIgnoreList/0", msg: UpdateIgnoreList{Target37: 5},
		payload: hx("81 | 0000000000000005 | 0000")},
	{name: "UpdateIgnoreList/1", msg: UpdateIgnoreList{Target37: 5, Ignores: []uint64{u64max}},
		payload: hx("81 | 0000000000000005 | 0001 | ffffffffffffffff")},
	{name: "UpdateIgnoreList/3", msg: UpdateIgnoreList{Target37: u64max, Ignores: []uint64{1, 0x0203040506070809, 0}},
		payload: hx("81 | ffffffffffffffff | 0003 | 0000000000000001 0203040506070809 0000000000000000")},
	{name: "UpdateIgnoreList/100", msg: UpdateIgnoreList{Target37: 6, Ignores: ignores100},
		payload: cat(hx("81 | 0000000000000006 | 0064"), ignores100Bytes)},
	{name: "MessagePrivate", msg: MessagePrivate{Recipient37: 1, Sender37: 2, MsgID: 1, Level: 0, Body: []byte("hello")},
		payload: hx("82 | 0000000000000001 | 0000000000000002 | 00000001 | 00 | 68656c6c6f")},
	{name: "MessagePrivate/msgid-1", msg: MessagePrivate{Recipient37: 3, Sender37: 4, MsgID: -1, Level: 2, Body: []byte{0xff}},
		payload: hx("82 | 0000000000000003 | 0000000000000004 | ffffffff | 02 | ff")},
	{name: "MessagePrivate/msgid-min", msg: MessagePrivate{Recipient37: u64max, Sender37: u64max, MsgID: math.MinInt32, Level: 255},
		payload: hx("82 | ffffffffffffffff | ffffffffffffffff | 80000000 | ff")},
	{name: "MessagePrivate/msgid-max", msg: MessagePrivate{Recipient37: 0, Sender37: 0, MsgID: math.MaxInt32, Level: 1, Body: []byte("x")},
		payload: hx("82 | 0000000000000000 | 0000000000000000 | 7fffffff | 01 | 78")},
	{name: "MessagePrivate/5000", msg: MessagePrivate{Recipient37: 9, Sender37: 8, MsgID: 0x01020304, Level: 0, Body: body5000},
		payload: cat(hx("82 | 0000000000000009 | 0000000000000008 | 01020304 | 00"), body5000)},
	{name: "FriendListComplete", msg: FriendListComplete{Target37: 0x0f0e0d0c0b0a0908},
		payload: hx("83 | 0f0e0d0c0b0a0908")},
	{name: "PlayerLoadResponse", msg: PlayerLoadResponse{User37: 7, SaveData: []byte("{}")},
		payload: hx("84 | 0000000000000007 | 7b7d")},
	{name: "PlayerLoadResponse/empty", msg: PlayerLoadResponse{User37: u64max},
		payload: hx("84 | ffffffffffffffff")},
	{name: "PlayerSaveAck/true", msg: PlayerSaveAck{User37: 7, Success: true},
		payload: hx("85 | 0000000000000007 | 01")},
	{name: "PlayerSaveAck/false", msg: PlayerSaveAck{User37: u64max, Success: false},
		payload: hx("85 | ffffffffffffffff | 00")},
	{name: "LoginCheckResponse/true", msg: LoginCheckResponse{User37: 0x0102030405060708, Allowed: true},
		payload: hx("86 | 0102030405060708 | 01")},
	{name: "LoginCheckResponse/false", msg: LoginCheckResponse{User37: u64max, Allowed: false},
		payload: hx("86 | ffffffffffffffff | 00")},
	{name: "LinkProof", msg: LinkProof{MAC: nonce32},
		payload: cat(hx("87"), nonce32[:])},
	{name: "Features", msg: Features{Mask: FeatureLoginRelease}, payload: hx("88 | 00000001")},
	{name: "Features/max", msg: Features{Mask: 0xffffffff}, payload: hx("88 | ffffffff")},

	{name: "WorldInfo", msg: WorldInfo{License: []byte("demo"), Instance: []byte("w10"), PublicURL: []byte("http://h:8080/")},
		payload: hx("11 | 04 | 64656d6f | 03 | 773130 | 687474703a2f2f683a383038302f")},
	{name: "WorldInfo/empty", msg: WorldInfo{}, payload: hx("11 | 00 | 00")},

	// Decode-only: any non-zero byte is true.
	{name: "PlayerSaveAck/2", msg: PlayerSaveAck{User37: 1, Success: true},
		payload: hx("85 | 0000000000000001 | 02"), decodeOnly: true},
	{name: "LoginCheckResponse/ff", msg: LoginCheckResponse{User37: 1, Allowed: true},
		payload: hx("86 | 0000000000000001 | ff"), decodeOnly: true},
}

// fixedSizes is the seed's table as payload sizes (opcode included) of the
// fixed-size messages.
var fixedSizes = map[Op]int{
	OpWorldRegister:      2,
	OpPlayerLogin:        11,
	OpPlayerLogout:       9,
	OpFriendAdd:          17,
	OpFriendDel:          17,
	OpIgnoreAdd:          17,
	OpIgnoreDel:          17,
	OpRequestLists:       9,
	OpChatModeUpdate:     10,
	OpPlayerLoadRequest:  9,
	OpPlayerResync:       12,
	OpLoginCheck:         9,
	OpRefreshAll:         1,
	OpUpdateFriendList:   18,
	OpFriendListComplete: 9,
	OpPlayerSaveAck:      10,
	OpLoginCheckResponse: 10,
	OpLinkChallenge:      33,
	OpLinkProof:          33,
	OpLoginRelease:       9,
	OpFeatureQuery:       1,
	OpFeatures:           5,
}

// nonce32 is 32 distinct bytes: 0x00 … 0x1f.
var nonce32 = func() (n [32]byte) {
	for i := range n {
		n[i] = byte(i)
	}
	return n
}()

// variableHeads is the fixed head of each variable-size message.
var variableHeads = map[Op]int{
	OpPrivateMessage:     18,
	OpPlayerSaveRequest:  9,
	OpLinkAuth:           1,
	OpWorldInfo:          3,
	OpUpdateIgnoreList:   11,
	OpMessagePrivate:     22,
	OpPlayerLoadResponse: 9,
}

// ptrTo returns a pointer to a copy of m (m itself if it is a pointer): the
// form the decoders return.
func ptrTo(m Message) Message {
	v := reflect.ValueOf(m)
	if v.Kind() == reflect.Pointer {
		return m
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.Interface().(Message)
}

// canon returns *m with every empty slice field made nil, so that messages
// compare equal whether a field was decoded as empty or left unset.
func canon(m Message) any {
	v := reflect.ValueOf(m)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	for i := range c.NumField() {
		if f := c.Field(i); f.Kind() == reflect.Slice && f.Len() == 0 {
			f.SetZero()
		}
	}
	return c.Interface()
}

func sameMessage(a, b Message) bool { return reflect.DeepEqual(canon(a), canon(b)) }
