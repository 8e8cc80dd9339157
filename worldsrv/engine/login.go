package engine

import (
	"bytes"
	"context"
	"errors"
	"math"
	"time"

	etherproto "github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// EarlyCheckValid is how long after an early LoginCheck (sent while the
// password is verified) its answer is relied on: ether's login lock lasts
// 10 s from the check, and the PlayerLogin must reach ether before it
// expires (or another world could log the player in). A password verified
// later has its lock given back and is asked again (authDone). It is not
// a Config field: it follows from ether's lock, not from the world.
const EarlyCheckValid = 5 * time.Second

// pendingLogin is a login waiting for ether: past its account check, first
// the LoginCheckResponse, then (pid set, PlayerLogin sent) the save. An
// early one (a sidecar that handles LoginRelease) sent its LoginCheck and
// PlayerLoadRequest at its arrival, so that ether answers while the
// password is verified; it completes when both are done (advance).
type pendingLogin struct {
	c        *Client
	acc      Account   // early: only User37 until authed
	deadline uint64    // the tick at which it is answered 13; early: none until authed
	pid      uint16    // 0 until ether allowed the login (and, early, the password was right)
	early    bool      // LoginCheck and PlayerLoadRequest sent before the password was verified
	authed   bool      // the password was verified (always, unless early)
	checked  bool      // early: the LoginCheckResponse came
	allowed  bool      // early: what it said
	loaded   bool      // early: the PlayerLoadResponse came
	blob     []byte    // early: its save data
	sent     time.Time // early: the tick that sent its LoginCheck (EarlyCheckValid runs from it)
}

// occupied is how many players are online or past their account check (an
// early pending login still verifying its password is not).
func (e *Engine) occupied() int { return len(e.byUser) + len(e.pending) - e.unauthed }

// overlaps reports whether a login's LoginCheck may go before its password
// is verified: only with a sidecar that announced LoginRelease on this
// connection (a wrong password must give the login lock back at once).
func (e *Engine) overlaps() bool {
	return e.link != nil && e.etherFeatures&etherproto.FeatureLoginRelease != 0 && e.link.Up()
}

// queuedLogin is a Login waiting for an account check slot: beyond
// MaxAuthInFlight checks running, a storm's logins wait their turn in
// arrival order rather than being answered 13.
type queuedLogin struct {
	c              *Client
	name, password string
}

// startAuth checks what needs no database, then runs the account check
// (startCheck), or queues the login behind the others waiting for a
// check slot: at most as many as the world has free places (more are
// answered 7).
func (e *Engine) startAuth(c *Client, m *proto.Login) {
	if code, refused := e.refusal(c, m.Username); refused {
		e.answer(c, code)
		return
	}
	if e.authing >= e.cfg.MaxAuthInFlight || len(e.authWait) > 0 {
		if e.occupied()+len(e.authWait) >= e.cfg.MaxPlayers {
			// The wait is bounded by the world's size: with as many
			// logins waiting as there are free places, one more could
			// not get in whatever the passwords.
			e.answer(c, proto.LoginWorldFull)
			return
		}
		c.state = stateQueued
		e.authWait = append(e.authWait, queuedLogin{c: c, name: m.Username, password: m.Password})
		return
	}
	e.startCheck(c, m.Username, m.Password)
}

// refusal is the answer to a login that needs no account check, if any:
// shutting down, too many connections, a bad name, full, no sidecar link
// (no password is hashed for a login that cannot complete).
func (e *Engine) refusal(c *Client, name string) (proto.LoginCode, bool) {
	switch {
	case e.shutting.Load():
		return proto.LoginShuttingDown, true
	case c.overLimit:
		return proto.LoginTooManyConnections, true
	case !proto.ValidName(name):
		return proto.LoginBadCredentials, true
	case e.occupied() >= e.cfg.MaxPlayers:
		return proto.LoginWorldFull, true
	case e.link != nil && !e.link.Up():
		return proto.LoginServerOffline, true
	}
	return 0, false
}

// startQueued starts the queued logins' account checks while slots are
// free, oldest first. A queued login waits as long as its client does (a
// hang-up releases it in the inputs phase, with no hash spent); what
// would refuse it at its arrival (shutdown, full, no sidecar link)
// answers it at once.
func (e *Engine) startQueued() {
	kept := e.authWait[:0]
	for _, q := range e.authWait {
		switch code, refused := e.refusal(q.c, q.name); {
		case q.c.state != stateQueued: // hung up, released by the inputs phase
		case refused:
			e.answer(q.c, code)
		case e.authing < e.cfg.MaxAuthInFlight:
			e.startCheck(q.c, q.name, q.password)
		default:
			kept = append(kept, q)
		}
	}
	clear(e.authWait[len(kept):])
	e.authWait = kept
}

// startCheck runs c's account check on a goroutine of its own; its result
// comes back through e.auths.
func (e *Engine) startCheck(c *Client, name, password string) {
	c.state = stateAuthing
	e.authing++
	if e.overlaps() {
		e.startEarly(c, name)
	}
	go func() {
		// The check waits its turn for a hashing slot as long as the
		// client waits (the store has no time bound of its own): a
		// login queued behind a storm's hashes is not one that
		// "could not complete".
		ctx, cancel := context.WithCancel(e.authCtx)
		defer cancel()
		go func() {
			select {
			case <-c.hangup:
				cancel()
			case <-ctx.Done():
			}
		}()
		acc, err := e.accounts.Login(ctx, name, password)
		e.auths <- authResult{c: c, acc: acc, err: err}
	}()
}

// startEarly sends c's LoginCheck and PlayerLoadRequest now, while its
// password is verified, unless another login of the same name is pending
// (that one holds the lock: its release must not be this one's) or the
// player is online; those take the verify-first way, as before.
func (e *Engine) startEarly(c *Client, name string) {
	user, err := proto.EncodeName(name) // the account's User37 (account.Account)
	if err != nil || e.pending[user] != nil || e.byUser[user] != nil {
		return
	}
	if !e.sendCheck(user) || !e.link.Send(etherproto.PlayerLoadRequest{User37: user}) {
		return // the check may be sent: its release goes the same way (dropPending)
	}
	p := &pendingLogin{c: c, acc: Account{User37: user}, deadline: math.MaxUint64, early: true, sent: e.lastNow}
	e.pending[user] = p
	e.pendingOrder = append(e.pendingOrder, p)
	e.unauthed++
	c.early = p
}

// earlyAuthed carries an early login on once its password was verified.
// The password decides first, whatever ether said meanwhile: a wrong one
// is answered 3 at once, exactly as a verify-first login (no oracle), and
// its login lock is given back (dropPending). A right one waits for
// ether's answers for at most PendingTicks from now.
func (e *Engine) earlyAuthed(p *pendingLogin, r authResult) {
	c := p.c
	if r.err != nil || c.hungUp() {
		e.dropPending(p)
		switch {
		case c.hungUp():
			c.state = stateClosing
		case errors.Is(r.err, ErrBadCredentials):
			e.answer(c, proto.LoginBadCredentials)
		default:
			e.log.Warn("login: account check failed", "err", r.err)
			e.answer(c, proto.LoginCouldNotComplete)
		}
		return
	}
	if r.acc.User37 != p.acc.User37 {
		e.dropPending(p) // cannot be: the account is its name's
		e.answer(c, proto.LoginCouldNotComplete)
		return
	}
	e.unauthed--
	p.authed, p.acc = true, r.acc
	switch {
	case e.shutting.Load():
		e.dropPending(p)
		e.answer(c, proto.LoginShuttingDown)
	case e.occupied() > e.cfg.MaxPlayers || len(e.freePIDs) == 0:
		e.dropPending(p)
		e.answer(c, proto.LoginWorldFull)
	default:
		c.state = statePending
		p.deadline = e.tick + uint64(e.cfg.PendingTicks)
		e.advance(p)
	}
}

// advance completes an early login whose password was right once ether's
// answers are in: 5 when the check denied, else PlayerLogin and, with its
// save, in.
func (e *Engine) advance(p *pendingLogin) {
	if !p.authed || !p.checked {
		return
	}
	if !p.allowed {
		delete(e.pending, p.acc.User37)
		e.answer(p.c, proto.LoginAlreadyOnline)
		return
	}
	if p.pid == 0 {
		p.pid = e.allocPID()
		e.link.Send(etherproto.PlayerLogin{User37: p.acc.User37, PID: p.pid})
	}
	if p.loaded {
		e.complete(p, p.blob)
	}
}

// phaseLogins takes the finished account checks, starts the checks of the
// logins waiting for a slot, and releases the pending logins whose clients
// hung up.
func (e *Engine) phaseLogins(time.Time) {
	for done := false; !done; {
		select {
		case r := <-e.auths:
			e.authing--
			e.authDone(r)
		default:
			done = true
		}
	}
	if len(e.authWait) > 0 {
		e.startQueued()
	}
	if len(e.pendingOrder) > 0 {
		e.sweepPending(false)
	}
}

// sweepPending releases the pending logins whose clients hung up and, with
// expire, answers 13 to those that waited PendingTicks ticks for ether.
// The logins phase sweeps the hang-ups before the ether phase's drain (no
// PlayerLogin for a client that is gone); the ether phase expires after
// its drain: a login whose answer arrived in time, but after the last
// drain, is answered by this tick's drain, not 13.
func (e *Engine) sweepPending(expire bool) {
	kept := e.pendingOrder[:0]
	for _, p := range e.pendingOrder {
		switch {
		case e.pending[p.acc.User37] != p:
			continue // answered already
		case p.c.hungUp():
			e.dropPending(p)
			if p.authed {
				p.c.state = stateClosing
			} // else its account check's end closes it (authDone)
			continue
		case expire && e.tick >= p.deadline:
			e.dropPending(p)
			e.answer(p.c, proto.LoginCouldNotComplete)
			continue
		}
		kept = append(kept, p)
	}
	clear(e.pendingOrder[len(kept):])
	e.pendingOrder = kept
}

// strandPending answers 8 (login server offline) to every login waiting
// for ether, when the link was lost and is still down: each one's
// LoginCheck went to a dead connection, so no answer will come, and 13
// after PendingTicks would only say so later. (When the link is already
// back, a pending login may have been sent on the new connection: it keeps
// its deadline.)
//
// An early login still verifying its password is only forgotten: its
// account check's end takes the verify-first way (authDone).
func (e *Engine) strandPending() {
	for _, p := range e.pendingOrder {
		if e.pending[p.acc.User37] == p {
			e.dropPending(p)
			if p.authed {
				e.answer(p.c, proto.LoginServerOffline)
			}
		}
	}
	clear(e.pendingOrder)
	e.pendingOrder = e.pendingOrder[:0]
}

// forgetEarly forgets the early pending logins still verifying their
// passwords, when the link was lost: their LoginChecks may have gone to
// the dead connection. Each one's account check then takes the
// verify-first way (authDone).
func (e *Engine) forgetEarly() {
	for _, p := range e.pendingOrder {
		if e.pending[p.acc.User37] == p && !p.authed {
			e.dropPending(p)
		}
	}
}

// dropPending forgets p, releasing its ether session when it has one, or
// the login lock its early LoginCheck took (unless ether denied it).
func (e *Engine) dropPending(p *pendingLogin) {
	delete(e.pending, p.acc.User37)
	if !p.authed {
		e.unauthed--
	}
	switch {
	case p.pid != 0:
		e.link.Send(etherproto.PlayerLogout{User37: p.acc.User37})
		e.freePID(p.pid)
	case p.early && (!p.checked || p.allowed):
		e.releaseLock(p.acc.User37)
	}
}

// releaseLock gives back the login lock user's LoginCheck took, for a
// login that ended before its PlayerLogin (LoginRelease). With the link
// down (a login dropped when it was lost, or ended while it is down) the
// release is owed (unreleased): the sidecar keeps the lock of a lost
// link's check, and the player's next login would be answered 5 until it
// expires. An owed release goes out when the link is back (sendReleases),
// or right before user's next LoginCheck if that comes first (sendCheck).
func (e *Engine) releaseLock(user uint64) {
	if !e.link.Send(etherproto.LoginRelease{User37: user}) {
		e.unreleased[user] = struct{}{}
	}
}

// sendCheck sends user's LoginCheck, behind the release of user's lock
// owed from a lost link (releaseLock): on the same connection, the
// sidecar frees that lock before it is asked for one.
func (e *Engine) sendCheck(user uint64) bool {
	if _, owed := e.unreleased[user]; owed && e.link.Send(etherproto.LoginRelease{User37: user}) {
		delete(e.unreleased, user)
	}
	return e.link.Send(etherproto.LoginCheck{User37: user})
}

// sendReleases sends the releases owed from a lost link, when it is back.
// The sidecar gives back only a lock its node still holds, unexpired and
// unused, so a release that comes late does nothing; one for a player
// whose login is in flight again is dropped instead (its LoginCheck went
// behind its release, or was answered 5 already: a release now could free
// the lock of that login).
func (e *Engine) sendReleases() {
	for user := range e.unreleased {
		if e.pending[user] == nil && e.byUser[user] == nil && !e.link.Send(etherproto.LoginRelease{User37: user}) {
			return // the queue is full or the link down again: the rest wait
		}
		delete(e.unreleased, user)
	}
}

// authDone carries a finished account check on: duplicate, full, sidecar,
// then LoginCheck to ether (or, with ether off, straight in).
func (e *Engine) authDone(r authResult) {
	c := r.c
	if c.state != stateAuthing {
		return // gone while its password was checked
	}
	if p := c.early; p != nil {
		c.early = nil
		switch {
		case e.pending[p.acc.User37] != p: // forgotten (link lost, hang-up): the verify-first way
		case r.err == nil && !c.hungUp() && e.lastNow.Sub(p.sent) > EarlyCheckValid:
			// Its lock may expire before its PlayerLogin reaches ether:
			// given back (ahead of the fresh LoginCheck), the verify-first way.
			e.dropPending(p)
		default:
			e.earlyAuthed(p, r)
			return
		}
	}
	if c.hungUp() {
		c.state = stateClosing // gone: no LoginCheck for it
		return
	}
	if r.err != nil && c.hungUp() {
		c.state = stateClosing // gave up while its password waited to be checked
		return
	}
	if r.err != nil {
		code := proto.LoginCouldNotComplete
		if errors.Is(r.err, ErrBadCredentials) {
			code = proto.LoginBadCredentials
		} else {
			e.log.Warn("login: account check failed", "err", r.err)
		}
		e.answer(c, code)
		return
	}
	user := r.acc.User37
	switch {
	case e.shutting.Load():
		e.answer(c, proto.LoginShuttingDown)
	case e.byUser[user] != nil || e.pending[user] != nil:
		e.answer(c, proto.LoginAlreadyOnline)
	case e.occupied() >= e.cfg.MaxPlayers || len(e.freePIDs) == 0:
		e.answer(c, proto.LoginWorldFull)
	case e.link == nil:
		e.accept(c, r.acc, e.allocPID(), e.saves[user])
	case !e.link.Up() || !e.sendCheck(user):
		e.answer(c, proto.LoginServerOffline)
	default:
		c.state = statePending
		p := &pendingLogin{c: c, acc: r.acc, deadline: e.tick + uint64(e.cfg.PendingTicks), authed: true}
		e.pending[user] = p
		e.pendingOrder = append(e.pendingOrder, p)
	}
}

// loginChecked is ether's answer to a LoginCheck: PlayerLogin and
// PlayerLoadRequest when allowed, 5 when not.
func (e *Engine) loginChecked(m etherproto.LoginCheckResponse) {
	p := e.pending[m.User37]
	if p != nil && p.early {
		if !p.checked {
			p.checked, p.allowed = true, m.Allowed
			e.advance(p)
		}
		return
	}
	if p == nil || p.pid != 0 {
		if m.Allowed && p == nil {
			e.log.Debug("login check answered after its login ended", "user", m.User37)
		}
		return
	}
	if !m.Allowed {
		delete(e.pending, m.User37)
		e.answer(p.c, proto.LoginAlreadyOnline)
		return
	}
	p.pid = e.allocPID()
	e.link.Send(etherproto.PlayerLogin{User37: m.User37, PID: p.pid})
	e.link.Send(etherproto.PlayerLoadRequest{User37: m.User37})
}

// loaded is ether's answer to PlayerLoadRequest: the login completes.
func (e *Engine) loaded(m etherproto.PlayerLoadResponse) {
	p := e.pending[m.User37]
	if p != nil && p.early && !p.loaded {
		p.loaded, p.blob = true, bytes.Clone(m.SaveData)
		e.advance(p)
		return
	}
	if p == nil || p.pid == 0 {
		return
	}
	e.complete(p, m.SaveData)
}

// complete lets p in with its save data blob (unless a newer one was kept
// while the link was down).
func (e *Engine) complete(p *pendingLogin, blob []byte) {
	user := p.acc.User37
	delete(e.pending, user)
	if kept, ok := e.saves[user]; ok {
		blob = kept // newer: saved while the link was down
		delete(e.saves, user)
	}
	e.accept(p.c, p.acc, p.pid, blob)
}

func (e *Engine) allocPID() uint16 {
	pid := e.freePIDs[len(e.freePIDs)-1]
	e.freePIDs = e.freePIDs[:len(e.freePIDs)-1]
	return pid
}

func (e *Engine) freePID(pid uint16) { e.freePIDs = append(e.freePIDs, pid) }
