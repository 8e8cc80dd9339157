//go:build !linux

package portholder

func find(int) (Holder, error) { return Holder{}, ErrUnsupported }
