// Package session keeps one session per player online on this ether node
// (friends, ignores and private mode, loaded from the store) and carries
// out the social behaviour of docs/ether.md: lists, presence,
// private messages, login checks, saves, resyncs and node up/down.
//
// # Life cycle
//
// A session lives in Manager.sessions from its first PlayerLogin (or
// PlayerResync) until it ends. Its state is read from Session.ready and
// Session.orphaned:
//
//	PlayerLogin / PlayerResync
//	        │
//	        ▼
//	    loading ── lists read from the store (empty while the database is
//	        │      down; Reload fills them later), player subject joined.
//	        │      Other nodes' login checks see it (HasSession); it answers
//	        │      no lookups or PMs yet.
//	        ▼
//	     ready ◄────────────────────────┐ PlayerLogin / PlayerResync on the
//	        │  │  WorldDown             │ new link (adopt; a resync reloads
//	        │  └──────────────► orphaned┘ the lists, takes the world's mode
//	        │                      │      and re-sends the lists)
//	        │ PlayerLogout         │ not resynced within LinkGrace
//	        ▼                      ▼      (endOrphans)
//	     ended ◄───────────────────┘
//
//	ended: removed from the map, ready cleared, reverse index entries and
//	player subject dropped, offline presence announced.
//
// A session whose world link drops while its PlayerLogin or PlayerResync
// is still loading is orphaned as well, since the drop: the frame carries
// the link generation it came on (adopt), and login compares it after the
// load (attachLocked), so it never turns a session of a lost link linked.
//
// A PlayerLogin for a ready session reloads its lists (loading again, but
// it keeps answering). An orphaned session still answers lookups and PMs,
// so friends see no flicker while its world reconnects; RefreshAll skips
// it. A *Session can outlive its end in work queued before the end (a
// RefreshAll right behind a PlayerLogout): such work is queued with
// Manager.doFor, which runs it only if s is still the player's session,
// so an ended session never re-sends its friends or announces itself.
//
// # Lock order
//
// Every frame about a player runs on that player's serial queue
// (Manager.exec), one at a time and in order; different players run
// concurrently. The locks nest in this order only:
//
//	player's serial queue (the running task)
//	  → Session.mu   (one session at a time, never two)
//	    → Manager.mu (sessions, reverse index, login leases)
//	      → leaves: serial.mu, the world link's send buffer, the store's
//	        write queue
//
// A task never waits for another player's queue: Manager.do only queues,
// and serial.mu is never held while a task runs. The cluster's callbacks
// (PresenceFor, DeliverPM, ApplyPresence, NodeDown) run on the cluster's
// goroutines, outside any queue, and take the same locks in the same
// order. Frames to the world are sent with the player's Session.mu held,
// which keeps each player's frames in order across those goroutines. No
// lock is held across a database or NATS round trip (Load, Lookup, SendPM,
// Acquire): the session's mu is released first and the session re-checked
// after.
//
// Session is a record, not an actor: the Manager's methods take its mu
// themselves, since they send frames under it. Methods of Session end in
// Locked and expect that mu held.
package session
