package engine

import (
	"context"
	"fmt"
	"time"

	etherproto "github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/worldsrv/admin"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// AdminQueue bounds the admin requests waiting for the next tick; a caller
// finding it full waits (bounded by its ctx).
const AdminQueue = 16

// adminOp is one admin console request kind.
type adminOp uint8

const (
	opStatus adminOp = iota + 1
	opPlayers
	opSay
	opKick
	opSave
	opShutdown
)

// adminReq is one admin request on its way to the tick; the tick answers
// on reply, which has room for the answer, so it never blocks.
type adminReq struct {
	op    adminOp
	text  string        // say: the text; kick: the name
	after time.Duration // shutdown: the countdown
	reply chan adminResp
}

// adminResp is the tick's answer.
type adminResp struct {
	status  admin.Status
	players []string
	n       int
	err     error
}

// countdown is an admin shutdown under way. Owned by the tick goroutine.
type countdown struct {
	active   bool
	at       time.Time // the tick time at which the world stops
	from     uint64    // the tick that started it: the world stops in a later one
	lastSaid int       // seconds left in the last announcement
}

// countdownSteps are the seconds left at which a countdown is announced
// (besides its start), largest first.
var countdownSteps = []int{3600, 1800, 600, 300, 120, 60, 30, 10, 5, 4, 3, 2, 1}

var _ admin.Console = (*Engine)(nil)

// Status implements admin.Console. Safe for concurrent use.
func (e *Engine) Status(ctx context.Context) (admin.Status, error) {
	r, err := e.ask(ctx, adminReq{op: opStatus})
	return r.status, err
}

// Players implements admin.Console. Safe for concurrent use.
func (e *Engine) Players(ctx context.Context) ([]string, error) {
	r, err := e.ask(ctx, adminReq{op: opPlayers})
	return r.players, err
}

// Say implements admin.Console. Safe for concurrent use.
func (e *Engine) Say(ctx context.Context, text string) error {
	_, err := e.ask(ctx, adminReq{op: opSay, text: text})
	return err
}

// Kick implements admin.Console: the player leaves with reason "kicked",
// saved. Safe for concurrent use.
func (e *Engine) Kick(ctx context.Context, name string) error {
	_, err := e.ask(ctx, adminReq{op: opKick, text: name})
	return err
}

// Save implements admin.Console. Safe for concurrent use.
func (e *Engine) Save(ctx context.Context) (int, error) {
	r, err := e.ask(ctx, adminReq{op: opSave})
	return r.n, err
}

// Shutdown implements admin.Console: a countdown with system messages,
// then everyone saved and logged out ("shutting down") and Stopping
// closed. Safe for concurrent use.
func (e *Engine) Shutdown(ctx context.Context, after time.Duration) error {
	if after < 0 {
		return fmt.Errorf("shutdown: negative delay %v", after)
	}
	_, err := e.ask(ctx, adminReq{op: opShutdown, after: after})
	return err
}

// Stopping is closed once an admin shutdown's countdown has ended and the
// last tick has logged everyone out: the process should stop (exit 0).
func (e *Engine) Stopping() <-chan struct{} { return e.stopping }

// ask hands req to the tick and waits for the answer or for ctx.
func (e *Engine) ask(ctx context.Context, req adminReq) (adminResp, error) {
	req.reply = make(chan adminResp, 1)
	select {
	case e.admin <- req:
	case <-ctx.Done():
		return adminResp{}, fmt.Errorf("admin request: %w", ctx.Err())
	}
	select {
	case r := <-req.reply:
		return r, r.err
	case <-ctx.Done():
		return adminResp{}, fmt.Errorf("admin request: %w", ctx.Err())
	}
}

// adminInputs answers the admin requests queued since the last tick and
// runs the shutdown countdown. Part of the inputs phase.
func (e *Engine) adminInputs(now time.Time) {
	for range AdminQueue {
		select {
		case req := <-e.admin:
			req.reply <- e.adminRun(req, now)
		default:
			e.countdownStep(now)
			return
		}
	}
	e.countdownStep(now)
}

func (e *Engine) adminRun(req adminReq, now time.Time) adminResp {
	switch req.op {
	case opStatus:
		return adminResp{status: e.adminStatus()}
	case opPlayers:
		names := make([]string, 0, len(e.byUser))
		for _, p := range e.byUser {
			names = append(names, p.name)
		}
		return adminResp{players: names}
	case opSay:
		e.say(req.text)
		return adminResp{}
	case opKick:
		return adminResp{err: e.kick(req.text)}
	case opSave:
		n := 0
		for _, p := range e.byUser {
			e.store(p)
			n++
		}
		return adminResp{n: n}
	case opShutdown:
		if e.down.active || e.shutting.Load() {
			return adminResp{err: admin.ErrShuttingDown}
		}
		e.down = countdown{active: true, at: now.Add(req.after), from: e.tick, lastSaid: -1}
		return adminResp{}
	}
	return adminResp{err: fmt.Errorf("admin request: unknown op %d", req.op)}
}

func (e *Engine) adminStatus() admin.Status {
	ether := "off"
	if e.link != nil {
		ether = "down"
		if e.link.Up() {
			ether = "up"
		}
	}
	return admin.Status{Node: e.cfg.NodeID, Seed: e.world.Seed(), Biome: e.world.Biome().String(),
		Players: len(e.byUser), MaxPlayers: e.cfg.MaxPlayers, Uptime: time.Since(e.born),
		Ether: ether, Ticks: e.tick, TickP99: e.Stats().Tick.P99}
}

// kick marks the player named name to leave, kicked; the logouts phase of
// this tick saves them.
func (e *Engine) kick(name string) error {
	user37, err := proto.EncodeName(name)
	if err != nil {
		return fmt.Errorf("kick %q: %w", name, admin.ErrNoSuchPlayer)
	}
	p, ok := e.byUser[user37]
	if !ok || p.leaving {
		return admin.ErrNoSuchPlayer
	}
	e.leave(p.c, proto.LogoutKicked)
	return nil
}

// store saves p (position included): to ether when the link takes it,
// else in the world's memory (sent on the next Connected).
func (e *Engine) store(p *player) {
	blob := save{Pos: p.pos, Chat: p.chat}.encode()
	if e.link == nil || !e.link.Send(etherproto.PlayerSaveRequest{User37: p.user37, SaveData: blob}) {
		e.saves[p.user37] = blob
		return
	}
	e.counters.savesSent.Add(1)
}

// countdownStep announces the countdown at its steps and, when it has run
// out (never in the tick that started it, so that the reply to "shutdown"
// has a tick's time to reach the operator before the console closes), stops logins and marks everyone to leave with reason "shutting
// down" (saved in this tick's logouts phase); Stopping closes after the
// tick.
func (e *Engine) countdownStep(now time.Time) {
	d := &e.down
	if !d.active {
		return
	}
	left := d.at.Sub(now)
	if left <= 0 && e.tick == d.from {
		return
	}
	if left <= 0 {
		d.active = false
		e.BeginShutdown()
		e.say("World shutting down now.")
		for _, p := range e.byUser {
			e.leave(p.c, proto.LogoutShutdown)
		}
		e.stopAfterTick = true
		return
	}
	secs := int((left + time.Second - 1) / time.Second)
	if d.lastSaid < 0 || secs <= nextStepBelow(d.lastSaid) {
		d.lastSaid = secs
		unit := "seconds"
		if secs == 1 {
			unit = "second"
		}
		e.say(fmt.Sprintf("World shutting down in %d %s", secs, unit))
	}
}

// nextStepBelow is the largest countdown step under s (0 when none).
func nextStepBelow(s int) int {
	for _, step := range countdownSteps {
		if step < s {
			return step
		}
	}
	return 0
}

// say sends text to every player online as a system message.
func (e *Engine) say(text string) {
	for _, p := range e.byUser {
		e.send(p.c, proto.SystemMessage{Text: text})
	}
}
