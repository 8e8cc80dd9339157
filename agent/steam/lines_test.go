package steam

import (
	"strings"
	"testing"
)

// Lines end at \n or \r; a long one is handed on in pieces; an overlong
// one keeps its start only; a secret never shows, whole or in part, even
// where a piece boundary or the cut falls inside it.
func TestLineSink_PiecesCutAndSecrets(t *testing.T) {
	const secret = "Sup3rS3cretBetaPw"
	var got []string
	k := newLineSink([]string{secret}, func(s string) { got = append(got, s) })
	atPiece := strings.Repeat("a", maxLineBytes-5) + secret + "tail"
	atCut := strings.Repeat("b", maxKeptLine-7) + secret + strings.Repeat("c", 100)
	in := "one\r two\n\n" + atPiece + "\n" + atCut + "\nlast"
	eachLine(strings.NewReader(in), k.line)

	if got[0] != "one" || got[1] != " two" || got[len(got)-1] != "last" {
		t.Errorf("first and last lines: %q %q %q", got[0], got[1], got[len(got)-1])
	}
	all := strings.Join(got, "")
	for _, part := range []string{secret, secret[:7], secret[7:]} {
		if strings.Contains(all, part) {
			t.Errorf("%q shows in the lines handed on", part)
		}
	}
	for _, s := range got {
		if len(s) > maxLineBytes {
			t.Errorf("a piece of %d bytes", len(s))
		}
	}
	if !strings.Contains(all, "xxxxxtail") || !strings.Contains(all, " [line cut]") || strings.Contains(all, "ccc") {
		t.Error("the masked secret, the cut mark or the dropped rest is wrong")
	}
	if strings.Contains(k.out.String(), secret[:7]) {
		t.Error("the kept output holds part of the secret")
	}
}

// runePrefix never splits a rune.
func TestRunePrefix(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{{"héllo", 2, "h"}, {"héllo", 3, "hé"}, {"abc", 5, "abc"}, {"abc", -1, ""}} {
		if got := runePrefix(tc.s, tc.n); got != tc.want {
			t.Errorf("runePrefix(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
