package auth_test

import (
	"encoding/base64"
	"testing"
)

func decodeToken(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encodeToken(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
