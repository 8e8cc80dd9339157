package flagval

// Default is v when it is positive, else def: the one rule of a config
// struct's zero fields, which take their defaults (a negative count or
// duration, time.Duration included, is no setting either).
func Default[T ~int | ~int32 | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
