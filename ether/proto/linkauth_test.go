package proto

import (
	"bytes"
	"errors"
	"strings"
	"testing"
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
		{"token too long for a frame", strings.Repeat("t", MaxPayload), nil, ErrTooLarge},
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
