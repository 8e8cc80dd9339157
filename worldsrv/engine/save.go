package engine

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// The save blob a world stores with ether (PlayerSaveRequest) and loads at
// login (PlayerLoadResponse), version 1, 12 bytes, big-endian:
//
//	"CWSV" magic, version u8 (1), x u16, y u16, public u8, private u8, trade u8
//
// A later version appends fields and bumps the version; decodeSave accepts
// only the versions it knows, at their exact length.
const (
	saveMagic   = "CWSV"
	saveVersion = 1
	saveLen     = 12
)

// ErrBadSave is decodeSave's error for a blob that is not a save it knows.
var ErrBadSave = errors.New("engine: bad save blob")

// save is what a player's save holds.
type save struct {
	Pos  terrain.Point
	Chat proto.ChatSettings
}

func (s save) encode() []byte {
	b := make([]byte, 0, saveLen)
	b = append(b, saveMagic...)
	b = append(b, saveVersion)
	b = binary.BigEndian.AppendUint16(b, s.Pos.X)
	b = binary.BigEndian.AppendUint16(b, s.Pos.Y)
	return append(b, byte(s.Chat.Public), byte(s.Chat.Private), byte(s.Chat.Trade))
}

// decodeSave parses a blob; an empty one is ok=false with no error (a new
// player).
func decodeSave(b []byte) (s save, ok bool, err error) {
	if len(b) == 0 {
		return save{}, false, nil
	}
	if len(b) < len(saveMagic)+1 || string(b[:len(saveMagic)]) != saveMagic {
		return save{}, false, fmt.Errorf("%w: no magic (%d bytes)", ErrBadSave, len(b))
	}
	if v := b[len(saveMagic)]; v != saveVersion {
		return save{}, false, fmt.Errorf("%w: version %d, want %d", ErrBadSave, v, saveVersion)
	}
	if len(b) != saveLen {
		return save{}, false, fmt.Errorf("%w: %d bytes, want %d", ErrBadSave, len(b), saveLen)
	}
	s.Pos = terrain.Point{X: binary.BigEndian.Uint16(b[5:]), Y: binary.BigEndian.Uint16(b[7:])}
	s.Chat = proto.ChatSettings{Public: proto.ChatMode(b[9]), Private: proto.ChatMode(b[10]), Trade: proto.ChatMode(b[11])}
	if !s.Chat.Public.Valid() || !s.Chat.Private.Valid() || !s.Chat.Trade.Valid() {
		return save{}, false, fmt.Errorf("%w: chat modes %d/%d/%d", ErrBadSave, b[9], b[10], b[11])
	}
	return s, true, nil
}
