package proto

import "bytes"

// decodable is implemented by every message's pointer type: decode fills the
// message from a whole payload whose opcode and length the table has
// checked, and returns the receiver (or nil and an error). Returning the
// receiver as a Message spares the caller an interface conversion.
type decodable interface {
	decode(payload []byte) (Message, error)
}

// Decode decodes a payload of any defined opcode, inbound or outbound, into
// a newly allocated message and returns a pointer to it (*PlayerLogin etc).
// []byte fields alias payload. Fixed-size messages must have exactly their
// size; variable-size ones must hold their fixed head (UpdateIgnoreList:
// exactly 11 + 8×count bytes). Errors wrap frame.ErrEmpty, frame.ErrUnknownOp or frame.ErrLength.
func Decode(payload []byte) (Message, error) { return decodeNew(payload, eitherWay) }

// DecodeInbound is Decode for a world → ether payload: an outbound or
// undefined opcode is frame.ErrUnknownOp.
func DecodeInbound(payload []byte) (Message, error) { return decodeNew(payload, toEther) }

// DecodeOutbound is Decode for an ether → world payload: an inbound or
// undefined opcode is frame.ErrUnknownOp.
func DecodeOutbound(payload []byte) (Message, error) { return decodeNew(payload, toWorld) }

func decodeNew(payload []byte, dir direction) (Message, error) {
	if !accepts(payload, dir) {
		return nil, reject(payload, dir)
	}
	return ops[payload[0]].new().decode(payload)
}

// DecodeOutboundCopy is DecodeOutbound for a message that must outlive
// payload (queued for another goroutine, say): it returns the message as a
// value (UpdateFriendList, never a pointer) that shares no storage with
// payload, its slices a copy. Every outbound message is copied by the same
// rule, so a message added to the table needs nothing here.
func DecodeOutboundCopy(payload []byte) (Message, error) {
	if !accepts(payload, toWorld) {
		return nil, reject(payload, toWorld)
	}
	row := &ops[payload[0]]
	m := row.new()
	if _, err := m.decode(bytes.Clone(payload)); err != nil {
		return nil, err
	}
	return row.value(m), nil
}

// accepts reports whether payload's opcode is defined for dir and payload
// has the length of the opcode's row, so that its decode method may read it.
func accepts(payload []byte, dir direction) bool {
	if len(payload) == 0 {
		return false
	}
	row := &ops[payload[0]]
	return row.dir&dir != 0 && row.Size.Fits(len(payload))
}

// A Decoder decodes into storage of its own, so decoding allocates nothing
// once each opcode's message exists (the first decode of an opcode
// allocates it; UpdateIgnoreList's slice grows, then reuses its storage).
// The returned Message points into the Decoder and is valid only until the
// next call; []byte fields alias the payload. The zero value is ready to
// use; a Decoder is not safe for concurrent use.
type Decoder struct {
	msgs [256]decodable // by opcode: the message decoded into, made by the table's constructor on first use
}

// Decode is the package's Decode, into the Decoder's storage.
func (d *Decoder) Decode(payload []byte) (Message, error) { return d.decode(payload, eitherWay) }

// DecodeInbound is the package's DecodeInbound, into the Decoder's storage.
func (d *Decoder) DecodeInbound(payload []byte) (Message, error) { return d.decode(payload, toEther) }

// DecodeOutbound is the package's DecodeOutbound, into the Decoder's storage.
func (d *Decoder) DecodeOutbound(payload []byte) (Message, error) {
	return d.decode(payload, toWorld)
}

func (d *Decoder) decode(payload []byte, dir direction) (Message, error) {
	if !accepts(payload, dir) {
		return nil, reject(payload, dir)
	}
	m := d.msgs[payload[0]]
	if m == nil {
		m = d.alloc(Op(payload[0]))
	}
	return m.decode(payload)
}

// alloc makes the Decoder's message for op, on the first decode of op.
func (d *Decoder) alloc(op Op) decodable {
	d.msgs[op] = ops[op].new()
	return d.msgs[op]
}
