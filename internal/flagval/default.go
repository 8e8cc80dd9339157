package flagval

import "time"

// Default is v when it is positive, else def: the one rule of a config
// struct's zero fields, which take their defaults (a negative count or
// duration is no setting either).
func Default[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
