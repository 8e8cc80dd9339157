package privacy

import "testing"

func TestMode_Visible(t *testing.T) {
	tests := []struct {
		name   string
		mode   Mode
		listed bool
		want   bool
		asks   bool // whether the rule needs the friend list
	}{
		{name: "on, listed", mode: On, listed: true, want: true},
		{name: "on, not listed", mode: On, listed: false, want: true},
		{name: "friends, listed", mode: Friends, listed: true, want: true, asks: true},
		{name: "friends, not listed", mode: Friends, listed: false, want: false, asks: true},
		{name: "off, listed", mode: Off, listed: true, want: false},
		{name: "off, not listed", mode: Off, listed: false, want: false},
		{name: "unknown mode hides", mode: 3, listed: true, want: false},
		{name: "largest unknown mode hides", mode: 255, listed: true, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := false
			got := tt.mode.Visible(func() bool { asked = true; return tt.listed })
			if got != tt.want {
				t.Errorf("%v.Visible(listed=%v) = %v, want %v", tt.mode, tt.listed, got, tt.want)
			}
			if asked != tt.asks {
				t.Errorf("%v.Visible asked for the friend list: %v, want %v", tt.mode, asked, tt.asks)
			}
		})
	}
}

func TestMode_ValidAndString(t *testing.T) {
	tests := []struct {
		mode  Mode
		valid bool
		name  string
	}{
		{On, true, "on"},
		{Friends, true, "friends"},
		{Off, true, "off"},
		{3, false, "mode(3)"},
		{255, false, "mode(255)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.mode.Valid(); got != tt.valid {
				t.Errorf("Mode(%d).Valid() = %v, want %v", uint8(tt.mode), got, tt.valid)
			}
			if got := tt.mode.String(); got != tt.name {
				t.Errorf("Mode(%d).String() = %q, want %q", uint8(tt.mode), got, tt.name)
			}
		})
	}
}

// The values are the wire's and the database's: they must never change.
func TestMode_WireValues(t *testing.T) {
	if On != 0 || Friends != 1 || Off != 2 {
		t.Fatalf("modes are On=%d Friends=%d Off=%d, want 0, 1, 2 as on the wire", On, Friends, Off)
	}
}
