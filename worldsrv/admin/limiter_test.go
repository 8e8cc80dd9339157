package admin

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func TestLimiter_BlocksAfterFreeFailuresAndGrows(t *testing.T) {
	l := newLimiter(LimitConfig{FreeFailures: 3, BaseBlock: 5 * time.Second, MaxBlock: 20 * time.Second})
	const a = "192.0.2.1:40000"
	now := t0
	for i := range 2 {
		if ok, _ := l.allow(a, now); !ok {
			t.Fatalf("failure %d: refused before the free failures ran out", i+1)
		}
		if b := l.fail(a, now); b != 0 {
			t.Fatalf("failure %d started a block of %v", i+1, b)
		}
	}
	for i, want := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 20 * time.Second} {
		if ok, _ := l.allow(a, now); !ok {
			t.Fatalf("step %d: refused before failing", i)
		}
		if b := l.fail(a, now); b != want {
			t.Fatalf("step %d: block %v, want %v", i, b, want)
		}
		// Another port of the same host is the same address.
		if ok, wait := l.allow("192.0.2.1:40001", now.Add(want-time.Millisecond)); ok || wait != time.Millisecond {
			t.Fatalf("step %d: allowed=%v wait=%v just before the block ends", i, ok, wait)
		}
		if ok, _ := l.allow("192.0.2.2:40000", now); !ok {
			t.Fatalf("step %d: another host was refused", i)
		}
		now = now.Add(want)
	}
}

func TestLimiter_SuccessAndTimeForget(t *testing.T) {
	l := newLimiter(LimitConfig{FreeFailures: 1, BaseBlock: time.Second, ForgetAfter: time.Minute})
	const a = "[2001:db8::1]:5000"
	l.fail(a, t0) // blocked for 1 s
	if ok, _ := l.allow(a, t0); ok {
		t.Fatal("not blocked after the free failure")
	}
	l.succeed(a)
	if ok, _ := l.allow(a, t0); !ok || l.tracked() != 0 {
		t.Fatalf("a right password did not forget the address (tracked %d)", l.tracked())
	}
	l.fail(a, t0)
	l.fail(a, t0.Add(time.Second)) // 2 s
	if b := l.fail(a, t0.Add(time.Second+time.Minute)); b != time.Second {
		t.Fatalf("after ForgetAfter of quiet the block is %v, want a fresh 1 s", b)
	}
}

func TestLimiter_MemoryBounded(t *testing.T) {
	l := newLimiter(LimitConfig{FreeFailures: 1, BaseBlock: time.Hour, MaxTracked: 64})
	for i := range 1000 {
		l.fail(fmt.Sprintf("10.0.%d.%d:1", i/256, i%256), t0.Add(time.Duration(i)*time.Millisecond))
		if n := l.tracked(); n > 64 {
			t.Fatalf("tracking %d addresses after %d, cap 64", n, i+1)
		}
	}
	// The most recent offenders are still blocked; the oldest were evicted.
	if ok, _ := l.allow("10.0.3.231:1", t0.Add(time.Second)); ok {
		t.Fatal("the latest offender was evicted")
	}
	if ok, _ := l.allow("10.0.0.0:1", t0.Add(time.Second)); !ok {
		t.Fatal("the oldest offender is still held past the cap")
	}
}
