package proto

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/frame"
)

func TestWriteLinkAuth(t *testing.T) {
	tests := []struct {
		name  string
		token string
		want  []byte // the bytes written
		err   error
	}{
		{"no token writes nothing", "", nil, nil},
		{"token", "s3cret", hx("0007 | 0f | 733363726574"), nil},
		{"longest token", strings.Repeat("t", MaxPayload-1), cat(hx("ffff 0f"), bytes.Repeat([]byte("t"), MaxPayload-1)), nil},
		{"token too long for a frame", strings.Repeat("t", MaxPayload), nil, frame.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w bytes.Buffer
			err := WriteLinkAuth(&w, tt.token)
			if !errors.Is(err, tt.err) || !bytes.Equal(w.Bytes(), tt.want) {
				t.Fatalf("wrote %d bytes (% .20x), err %v; want %d bytes, err %v", w.Len(), w.Bytes(), err, len(tt.want), tt.err)
			}
		})
	}
}

// ProveLink is HMAC-SHA256(token, label ‖ nonce): the vector was computed
// with Python's hmac module. ValidProof accepts exactly that MAC.
func TestProveLink(t *testing.T) {
	mac := ProveLink([]byte("s3cret"), nonce32)
	if got := hex.EncodeToString(mac[:]); got != "2754660c45cfb64887a0cd52e64eaa207fe290ea96bcfdab98e26fdbfbbc361d" {
		t.Fatalf("ProveLink = %s", got)
	}
	other := nonce32
	other[0] ^= 1
	tests := []struct {
		name  string
		token string
		nonce [NonceLen]byte
		mac   [NonceLen]byte
		want  bool
	}{
		{"the right proof", "s3cret", nonce32, mac, true},
		{"another token", "s3cret2", nonce32, mac, false},
		{"another nonce", "s3cret", other, mac, false},
		{"an echo of the nonce", "s3cret", nonce32, nonce32, false},
		{"zero", "s3cret", nonce32, [NonceLen]byte{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidProof([]byte(tt.token), tt.nonce, tt.mac); got != tt.want {
				t.Fatalf("ValidProof = %v, want %v", got, tt.want)
			}
		})
	}
}
