package engine

import (
	"strings"
	"time"

	etherproto "github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// phaseEther handles a batch of EtherDrain events from the sidecar link,
// and more batches while a backlog is queued, within EtherCatchUp: a
// backlog drained at one batch a tick grows without end in a reconnect
// storm (each login brings about eight events of friend lists and
// presence), until the link's queue is full, its reader stops, and the
// login answers behind it time out. Then it answers 13 to the logins that
// waited PendingTicks ticks (sweepPending), after the drain, which may
// have brought their answers.
func (e *Engine) phaseEther(time.Time) {
	if e.link == nil {
		return
	}
	start := e.clock()
	for {
		n := e.link.Drain(e.cfg.EtherDrain, e.etherEvent)
		e.counters.etherEvents.Add(uint64(n))
		if n < e.cfg.EtherDrain || e.cfg.EtherCatchUp < 0 || e.clock().Sub(start) >= e.cfg.EtherCatchUp {
			break
		}
	}
	if len(e.pendingOrder) > 0 {
		e.sweepPending(true)
	}
	if len(e.holding) > 0 {
		e.expireHeld()
	}
}

func (e *Engine) etherEvent(ev etherlink.Event) {
	switch ev.Kind {
	case etherlink.Connected:
		e.etherFeatures = 0 // until this connection's sidecar says
		e.sendReleases()
		e.resync()
	case etherlink.Disconnected:
		e.log.Warn("ether link lost: social features paused", "err", ev.Err)
		e.etherFeatures = 0
		e.forgetEarly()
		if !e.link.Up() {
			e.strandPending()
		}
	case etherlink.Message:
		e.etherMessage(ev.Msg)
	}
}

// resync sends the saves kept while the link was down, recreates every
// online player's ether session, then asks every session to refresh its
// presence.
func (e *Engine) resync() {
	for user, blob := range e.saves {
		if e.link.Send(etherproto.PlayerSaveRequest{User37: user, SaveData: blob}) {
			delete(e.saves, user)
		}
	}
	for _, p := range e.players {
		if p != nil {
			e.link.Send(etherproto.PlayerResync{User37: p.user37, PID: p.pid, PrivateMode: uint8(p.chat.Private)})
		}
	}
	e.link.Send(etherproto.RefreshAll{})
}

// etherMessage turns one sidecar message into the engine's state and the
// client's frames.
func (e *Engine) etherMessage(m etherproto.Message) {
	switch m := m.(type) {
	case etherproto.LoginCheckResponse:
		e.loginChecked(m)
	case etherproto.PlayerLoadResponse:
		e.loaded(m)
	case etherproto.UpdateFriendList:
		if p := e.byUser[m.Target37]; p != nil {
			p.friends[m.Friend37] = m.Node
			e.send(p.c, proto.FriendStatus{Name37: m.Friend37, Node: m.Node})
		}
	case etherproto.UpdateIgnoreList:
		if p := e.byUser[m.Target37]; p != nil {
			p.ignores = append(p.ignores[:0], m.Ignores...)
			e.send(p.c, proto.IgnoreList{Names37: p.ignores})
		}
	case etherproto.FriendListComplete:
		if p := e.byUser[m.Target37]; p != nil {
			e.send(p.c, proto.FriendListLoaded{})
			e.listsLoaded(p)
		}
	case etherproto.MessagePrivate:
		if p := e.byUser[m.Recipient37]; p != nil {
			e.send(p.c, proto.PrivateMessageIn{From37: m.Sender37, MsgID: m.MsgID,
				Level: proto.Level(m.Level), Text: strings.ToValidUTF8(string(m.Body), "?")})
		}
	case etherproto.Features:
		e.etherFeatures = m.Mask
	case etherproto.PlayerSaveAck:
		e.counters.savesAcked.Add(1)
		if !m.Success {
			e.log.Warn("ether queued a save it could not store yet", "user", m.User37)
		}
	default:
		e.log.Debug("ether message ignored", "op", m.Op())
	}
}
