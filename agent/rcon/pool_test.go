package rcon

import (
	"errors"
	"testing"
)

// fakeConn stands for a connection; shut counts its closes.
type fakeConn struct{ shut int }

func TestPooledDropKeepsANewerConnection(t *testing.T) {
	p := pooled[*fakeConn]{shut: func(c *fakeConn) { c.shut++ }}
	old, cur := &fakeConn{}, &fakeConn{}
	if err := p.put(cur); err != nil {
		t.Fatal(err)
	}
	p.drop(old) // a command that failed on the connection before cur
	if got, _ := p.get(); got != cur {
		t.Fatalf("pooled %p after dropping a stale connection; want %p", got, cur)
	}
	if old.shut != 1 || cur.shut != 0 {
		t.Fatalf("shut old %d, cur %d; want 1, 0", old.shut, cur.shut)
	}
	p.drop(cur)
	if got, _ := p.get(); got != nil {
		t.Fatalf("pooled %p after dropping it; want none", got)
	}
}

func TestPooledAfterClose(t *testing.T) {
	p := pooled[*fakeConn]{shut: func(c *fakeConn) { c.shut++ }}
	held := &fakeConn{}
	if err := p.put(held); err != nil {
		t.Fatal(err)
	}
	if got := p.close(); got != held {
		t.Fatalf("close returned %p; want the pooled %p", got, held)
	}
	late := &fakeConn{} // dialled while Close ran
	if err := p.put(late); !errors.Is(err, ErrClosed) || late.shut != 1 {
		t.Fatalf("put after close: err %v, shut %d; want ErrClosed, 1", err, late.shut)
	}
	if _, err := p.get(); !errors.Is(err, ErrClosed) || !p.isClosed() {
		t.Fatalf("get after close: %v; want ErrClosed", err)
	}
}
