package proto

import (
	"errors"
	"strings"
	"testing"
)

// Known values, worked out by hand with v = v*37 + c (a–z 1–26, 0–9 27–36,
// '_' and space 0):
//
//	"ab"     = 1*37 + 2 = 39
//	"a b"    = (1*37 + 0)*37 + 2 = 1371
//	"zezima" = z26 e5 z26 i9 m13 a1:
//	           26*37+5 = 967; 967*37+26 = 35805; 35805*37+9 = 1324794;
//	           1324794*37+13 = 49017391; 49017391*37+1 = 1813643468
//	"1abc"   = ((28*37 + 1)*37 + 2)*37 + 3 = 1419730
func TestEncodeName_KnownValues(t *testing.T) {
	for _, c := range []struct {
		name    string
		v       uint64
		display string
	}{
		{"a", 1, "A"},
		{"z", 26, "Z"},
		{"0", 27, "0"},
		{"9", 36, "9"},
		{"ab", 39, "Ab"},
		{"a b", 1371, "A B"},
		{"a_b", 1371, "A B"},
		{"bob", 3295, "Bob"},
		{"b0b", 3739, "B0b"},
		{"zezima", 1813643468, "Zezima"},
		{"Zezima", 1813643468, "Zezima"},
		{"ZEZIMA", 1813643468, "Zezima"},
		{"iron_man", 901636385016, "Iron Man"},
		{"mod_mark", 1272878335227, "Mod Mark"},
		{"1abc", 1419730, "1abc"},
		{"a  b", 50655, "A  B"}, // 1*37^3 + 2
		{"999999999999", MaxName37, "999999999999"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := EncodeName(c.name)
			if err != nil || v != c.v {
				t.Fatalf("EncodeName(%q) = %d, %v; want %d", c.name, v, err, c.v)
			}
			if got := DecodeName(v); got != c.display {
				t.Errorf("DecodeName(%d) = %q, want %q", v, got, c.display)
			}
			if !ValidName37(v) {
				t.Errorf("ValidName37(%d) = false", v)
			}
			back, err := EncodeName(DecodeName(v))
			if err != nil || back != v {
				t.Errorf("EncodeName(DecodeName(%d)) = %d, %v", v, back, err)
			}
		})
	}
}

func TestValidName(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"abcdefghijkl", true},
		{"abcdefghijklm", false}, // 13
		{"", false},
		{"a_b c", true},
		{"_ab", false},
		{" ab", false},
		{"ab_", false},
		{"ab ", false},
		{"_", false},
		{" ", false},
		{"a-b", false},
		{"a.b", false},
		{"ä", false},
		{"a\x00", false},
		{"Mod Mark", true},
	} {
		if got := ValidName(c.name); got != c.ok {
			t.Errorf("ValidName(%q) = %v, want %v", c.name, got, c.ok)
		}
		_, err := EncodeName(c.name)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrInvalidName)) {
			t.Errorf("EncodeName(%q) error %v", c.name, err)
		}
	}
}

// The classic encoding drops trailing zero digits (trailing spaces), and
// ignores characters past the twelfth.
func TestEncode37_ClassicRules(t *testing.T) {
	for _, c := range []struct{ in, same string }{
		{"abc ", "abc"},
		{"abc__", "abc"},
		{"abcdefghijklmnop", "abcdefghijkl"},
	} {
		if a, b := encode37(c.in), encode37(c.same); a != b {
			t.Errorf("encode37(%q) = %d, encode37(%q) = %d; want equal", c.in, a, c.same, b)
		}
	}
	if v := encode37("   "); v != 0 {
		t.Errorf("encode37 of spaces = %d, want 0", v)
	}
}

func TestDecodeName_NotAName(t *testing.T) {
	for _, v := range []uint64{0, MaxName37 + 1, 1<<64 - 1} {
		if got := DecodeName(v); got != "" {
			t.Errorf("DecodeName(%d) = %q, want \"\"", v, got)
		}
		if ValidName37(v) {
			t.Errorf("ValidName37(%d) = true", v)
		}
	}
	// 37 is "a" followed by a zero digit: a name ending in a space, which
	// no valid name encodes to (EncodeName would have dropped the zero).
	if ValidName37(37) {
		t.Error("ValidName37(37) = true")
	}
	if got := DecodeName(37); got != "A " {
		t.Errorf("DecodeName(37) = %q, want %q", got, "A ")
	}
}

// Every valid name37 value round trips through its display form, and every
// valid name through its value.
func FuzzName37(f *testing.F) {
	for _, s := range []string{"a", "zezima", "iron_man", "999999999999", "a  b", "", "_x", "Mod Mark"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := EncodeName(s)
		if !ValidName(s) {
			if !errors.Is(err, ErrInvalidName) {
				t.Fatalf("EncodeName(%q) = %d, %v for an invalid name", s, v, err)
			}
			return
		}
		if err != nil || v == 0 || v > MaxName37 || !ValidName37(v) {
			t.Fatalf("EncodeName(%q) = %d, %v", s, v, err)
		}
		d := DecodeName(v)
		if !strings.EqualFold(strings.ReplaceAll(s, "_", " "), d) {
			t.Fatalf("DecodeName(EncodeName(%q)) = %q", s, d)
		}
		if back, err := EncodeName(d); err != nil || back != v {
			t.Fatalf("EncodeName(%q) = %d, %v; want %d", d, back, err, v)
		}
	})
}

func FuzzDecodeName(f *testing.F) {
	for _, v := range []uint64{0, 1, 37, 1813643468, MaxName37, MaxName37 + 1} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v uint64) {
		d := DecodeName(v)
		if !ValidName37(v) {
			return
		}
		if back, err := EncodeName(d); err != nil || back != v {
			t.Fatalf("EncodeName(DecodeName(%d) = %q) = %d, %v", v, d, back, err)
		}
	})
}

func TestCodes_String(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{LoginOK.String(), "success"},
		{LoginCouldNotComplete.String(), "could not complete login"},
		{LoginCode(4).String(), "LoginCode(4)"},
		{LogoutIdle.String(), "idle"},
		{LogoutReason(4).String(), "LogoutReason(4)"},
		{ChatFriends.String(), "friends"},
		{ChatMode(3).String(), "ChatMode(3)"},
		{LevelModerator.String(), "moderator"},
		{Level(3).String(), "Level(3)"},
		{OpWalk.String(), "Walk"},
		{ClientOp(11).String(), "ClientOp(11)"},
		{OpLoggedOut.String(), "LoggedOut"},
		{WorldOp(0).String(), "WorldOp(0)"},
	} {
		if c.got != c.want {
			t.Errorf("String() = %q, want %q", c.got, c.want)
		}
	}
	for _, c := range []LoginCode{2, 3, 5, 7, 8, 9, 13, 14} {
		if !c.Defined() {
			t.Errorf("LoginCode %d not defined", c)
		}
	}
	for _, c := range []LoginCode{0, 1, 4, 6, 10, 11, 12, 15} {
		if c.Defined() {
			t.Errorf("LoginCode %d defined", c)
		}
	}
}
