package account

import "testing"

func TestEncodeName(t *testing.T) {
	tests := []struct {
		in        string
		want      uint64
		canonical string
		ok        bool
	}{
		{"a", 1, "a", true},
		{"A", 1, "a", true},
		{"b", 2, "b", true},
		{"ab", 1*37 + 2, "ab", true},
		{"9", 36, "9", true},
		{"a b", 1*37*37 + 2, "a b", true},
		{"a_b", 1*37*37 + 2, "a b", true},
		{"Zezima", 0, "zezima", true},
		{"zzzzzzzzzzzz", 4754354226440025480, "zzzzzzzzzzzz", true},
		{"999999999999", 6582952005840035280, "999999999999", true}, // 37^12-1, the largest value
		{"", 0, "", false},
		{"abcdefghijklm", 0, "", false},
		{" ab", 0, "", false},
		{"ab ", 0, "", false},
		{"_ab", 0, "", false},
		{"ab_", 0, "", false},
		{"a-b", 0, "", false},
		{"\u212aat", 0, "", false}, // Kelvin sign: lower-cases to k outside ASCII
		{"é", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, c, ok := encodeName(tt.in)
			if ok != tt.ok || (ok && c != tt.canonical) || (tt.want != 0 && v != tt.want) {
				t.Fatalf("encodeName(%q) = %d, %q, %v; want %d, %q, %v", tt.in, v, c, ok, tt.want, tt.canonical, tt.ok)
			}
			if ok && (v == 0 || v >= 1<<63) {
				t.Fatalf("encodeName(%q) = %d: outside bigint's positive range", tt.in, v)
			}
		})
	}
}
