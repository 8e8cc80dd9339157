package engine

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corrosion/corrosion/internal/ethertest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/admin"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// adminCall runs fn (an admin console call) on its own goroutine, as the
// console's connections do, and ticks until it has returned.
func (w *world) adminCall(what string, fn func(ctx context.Context) error) error {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	var err error
	w.tickUntil(what+" answered", func() bool {
		select {
		case err = <-done:
			return true
		default:
			return false
		}
	})
	return err
}

// systemTexts are the SystemMessage texts among msgs.
func systemTexts(msgs []proto.WorldMessage) []string {
	var out []string
	for _, m := range msgs {
		if s, ok := m.(*proto.SystemMessage); ok {
			out = append(out, s.Text)
		}
	}
	return out
}

func TestAdmin_StatusAndPlayers(t *testing.T) {
	w := offWorld(t, Config{MaxPlayers: 50})
	w.login("10.0.0.1", "Alice", "pw")
	w.login("10.0.0.2", "bob", "pw")
	var st admin.Status
	err := w.adminCall("status", func(ctx context.Context) (err error) { st, err = w.e.Status(ctx); return err })
	if err != nil {
		t.Fatal(err)
	}
	if st.Node != 10 || st.Players != 2 || st.MaxPlayers != 50 || st.Ether != "off" ||
		st.Seed != testMap().Seed() || st.Biome != "grassland" || st.Ticks == 0 {
		t.Fatalf("status %+v", st)
	}
	var names []string
	err = w.adminCall("players", func(ctx context.Context) (err error) { names, err = w.e.Players(ctx); return err })
	slices.Sort(names)
	if err != nil || !slices.Equal(names, []string{"Alice", "Bob"}) {
		t.Fatalf("players %v, %v", names, err)
	}
}

func TestAdmin_SayReachesEveryone(t *testing.T) {
	w := offWorld(t, Config{})
	a, _ := w.login("10.0.0.1", "alice", "pw")
	b, _ := w.login("10.0.0.2", "bob", "pw")
	a.take()
	b.take()
	if err := w.adminCall("say", func(ctx context.Context) error { return w.e.Say(ctx, "server restart at noon") }); err != nil {
		t.Fatal(err)
	}
	w.tick()
	for _, c := range []*client{a, b} {
		if got := systemTexts(c.take()); !slices.Equal(got, []string{"server restart at noon"}) {
			t.Fatalf("system messages %q", got)
		}
	}
}

func TestAdmin_KickSavesAndLogsOut(t *testing.T) {
	w := offWorld(t, Config{})
	c, _ := w.login("10.0.0.1", "Rowdy", "pw")
	stay, _ := w.login("10.0.0.2", "calm", "pw")
	user := c.c.player.user37
	err := w.adminCall("kick nobody", func(ctx context.Context) error { return w.e.Kick(ctx, "nobody") })
	if !errors.Is(err, admin.ErrNoSuchPlayer) {
		t.Fatalf("kick nobody: %v, want ErrNoSuchPlayer", err)
	}
	if err := w.adminCall("kick", func(ctx context.Context) error { return w.e.Kick(ctx, "rowdy") }); err != nil {
		t.Fatal(err)
	}
	w.tickUntil("kicked player released", c.done)
	if lo, ok := find[*proto.LoggedOut](c.take()); !ok || lo.Reason != proto.LogoutKicked {
		t.Fatalf("LoggedOut %v (found %v), want reason kicked", lo, ok)
	}
	if w.e.byUser[user] != nil || w.e.saves[user] == nil {
		t.Fatal("kicked player still online, or not saved")
	}
	if stay.done() || w.e.Stats().Players != 1 {
		t.Fatal("the other player was kicked too")
	}
}

func TestAdmin_SaveCountsEveryone(t *testing.T) {
	w := offWorld(t, Config{})
	var n int
	if err := w.adminCall("save", func(ctx context.Context) (err error) { n, err = w.e.Save(ctx); return err }); err != nil || n != 0 {
		t.Fatalf("empty world: saved %d, %v", n, err)
	}
	a, _ := w.login("10.0.0.1", "alice", "pw")
	b, _ := w.login("10.0.0.2", "bob", "pw")
	if err := w.adminCall("save", func(ctx context.Context) (err error) { n, err = w.e.Save(ctx); return err }); err != nil || n != 2 {
		t.Fatalf("saved %d, %v; want 2", n, err)
	}
	for _, c := range []*client{a, b} {
		if w.e.saves[c.c.player.user37] == nil || c.done() {
			t.Fatal("player not saved, or logged out by a save")
		}
	}
}

// shutdown 3: announced at 3, 2 and 1 seconds left, then everyone is
// logged out (shutting down), saved, and Stopping closes; a second
// shutdown meanwhile is refused.
func TestAdmin_ShutdownCountsDownThenStops(t *testing.T) {
	w := offWorld(t, Config{})
	c, _ := w.login("10.0.0.1", "alice", "pw")
	user := c.c.player.user37
	c.take()
	if err := w.adminCall("shutdown", func(ctx context.Context) error { return w.e.Shutdown(ctx, 3*time.Second) }); err != nil {
		t.Fatal(err)
	}
	err := w.adminCall("second shutdown", func(ctx context.Context) error { return w.e.Shutdown(ctx, 0) })
	if !errors.Is(err, admin.ErrShuttingDown) {
		t.Fatalf("second shutdown: %v, want ErrShuttingDown", err)
	}
	var got []proto.WorldMessage
	for i := 0; i < 10 && !c.done(); i++ {
		select {
		case <-w.e.Stopping():
			t.Fatal("stopping before the countdown ended")
		default:
		}
		w.tick()
		c.read()
	}
	got = c.take()
	want := []string{"World shutting down in 3 seconds", "World shutting down in 2 seconds",
		"World shutting down in 1 second", "World shutting down now."}
	if texts := systemTexts(got); !slices.Equal(texts, want) {
		t.Fatalf("countdown %q, want %q", texts, want)
	}
	if lo, ok := find[*proto.LoggedOut](got); !ok || lo.Reason != proto.LogoutShutdown {
		t.Fatalf("LoggedOut %v, want reason shutting down", got)
	}
	select {
	case <-w.e.Stopping():
	default:
		t.Fatal("Stopping not closed after the countdown")
	}
	if w.e.saves[user] == nil || w.e.Stats().Players != 0 {
		t.Fatal("player not saved or still online")
	}
	if _, msgs := w.login("10.0.0.2", "late", "pw"); code(t, msgs) != proto.LoginShuttingDown {
		t.Fatalf("login after shutdown: %v", msgs)
	}
}

// A stalled tick (here: none runs) does not hold a console call past its
// ctx.
func TestAdmin_CallReturnsWhenTickStalls(t *testing.T) {
	w := offWorld(t, Config{})
	for range AdminQueue + 2 { // fills the queue: later calls wait to enqueue
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		_, err := w.e.Status(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("status with no tick: %v, want a deadline error", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("status took %v after its deadline", d)
		}
	}
	// The abandoned requests are answered into their buffered replies
	// without blocking the tick.
	w.tick()
	w.tick()
	var st admin.Status
	err := w.adminCall("status after", func(ctx context.Context) (err error) { st, err = w.e.Status(ctx); return err })
	if err != nil || !strings.EqualFold(st.Ether, "off") {
		t.Fatalf("status after a stall: %+v, %v", st, err)
	}
}

// With ether on, save sends a PlayerSaveRequest per player: the real
// sidecar stores the player's save while the player stays online.
func TestAdmin_SaveReachesEther(t *testing.T) {
	sc := ethertest.Start(t)
	link := startLink(t, sc.Addr())
	w := etherWorld(t, link, Config{})
	w.tickUntil("link up", link.Up)
	c, got := w.login("10.0.0.1", "keeper", "pw")
	if code(t, got) != proto.LoginOK {
		t.Fatalf("login: %v", got)
	}
	p := c.c.player
	want := save{Pos: p.pos, Chat: p.chat}.encode()
	pool, err := pgxpool.New(context.Background(), sc.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	stored := func() []byte {
		var b []byte
		err := pool.QueryRow(context.Background(), "SELECT save_data FROM player_saves WHERE user_hash = $1",
			int64(p.user37)).Scan(&b)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		return b
	}
	if b := stored(); b != nil {
		t.Fatalf("a save before the save command: %x", b)
	}
	var n int
	if err := w.adminCall("save", func(ctx context.Context) (err error) { n, err = w.e.Save(ctx); return err }); err != nil || n != 1 {
		t.Fatalf("saved %d, %v; want 1", n, err)
	}
	poll.True(t, wait, "ether stores the save", func() bool { w.tick(); return bytes.Equal(stored(), want) })
	if c.done() || len(w.e.saves) != 0 {
		t.Fatal("the save logged the player out, or was kept in the world instead of sent")
	}
}

// shutdown 0 stops in the tick after the one that answered it, never in
// the same one: the reply gets a tick's time to reach the operator.
func TestAdmin_ShutdownNowStopsNextTick(t *testing.T) {
	w := offWorld(t, Config{})
	c, _ := w.login("10.0.0.1", "alice", "pw")
	c.take()
	done := make(chan error, 1)
	go func() { done <- w.e.Shutdown(context.Background(), 0) }()
	poll.True(t, wait, "the request queued", func() bool { return len(w.e.admin) == 1 })
	w.tick()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.e.Stopping():
		t.Fatal("stopping in the tick that answered shutdown 0")
	default:
	}
	w.tick()
	<-w.e.Stopping()
	got := c.take()
	if lo, ok := find[*proto.LoggedOut](got); !ok || lo.Reason != proto.LogoutShutdown {
		t.Fatalf("LoggedOut %v, want reason shutting down", got)
	}
	if texts := systemTexts(got); !slices.Equal(texts, []string{"World shutting down now."}) {
		t.Fatalf("system messages %q", texts)
	}
}
