package session

import (
	"slices"
	"sync"
	"testing"
)

func TestSerial_OrderPerKeyConcurrencyAcrossKeys(t *testing.T) {
	var x serial
	x.init(1000)
	var mu sync.Mutex
	got := map[uint64][]int{}
	// Key 1's first function blocks until key 2 has run: keys run concurrently.
	release := make(chan struct{})
	x.Do(1, func() { <-release })
	for i := 0; i < 100; i++ {
		for _, k := range []uint64{1, 2} {
			i, k := i, k
			x.Do(k, func() {
				mu.Lock()
				got[k] = append(got[k], i)
				mu.Unlock()
			})
		}
	}
	x.Do(2, func() { close(release) })
	x.Wait()
	for _, k := range []uint64{1, 2} {
		if len(got[k]) != 100 || !slices.IsSorted(got[k]) {
			t.Fatalf("key %d ran %v", k, got[k])
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.queues) != 0 || x.pending != 0 {
		t.Fatalf("idle executor keeps %d queues, %d pending", len(x.queues), x.pending)
	}
}

func TestSerial_DropsBeyondTheLimit(t *testing.T) {
	var x serial
	x.init(3)
	block := make(chan struct{})
	started := make(chan struct{})
	x.Do(1, func() { close(started); <-block }) // running: no longer pending
	<-started
	ran := 0
	var accepted []bool
	for i := 0; i < 5; i++ {
		accepted = append(accepted, x.Do(1, func() { ran++ }))
	}
	close(block)
	x.Wait()
	if want := []bool{true, true, true, false, false}; !slices.Equal(accepted, want) || ran != 3 {
		t.Fatalf("accepted %v, ran %d", accepted, ran)
	}
}
