// Package engine is the world's 600 ms tick: it owns every player, runs the
// seed's phases in order, and talks to clients and to the ether sidecar only
// through bounded queues, so that nothing outside can block a tick.
//
// Phases, in order, each timed (Stats):
//
//	world                 advances the tick counter (world events go here)
//	inputs                admits new connections (Attach), reads each client's
//	                      inbound queue: Login starts an account check on a
//	                      goroutine of its own (or waits for a free one); a
//	                      player's frames are handled
//	                      (walk target, social frames to ether, Logout); hung-up
//	                      and idle clients are marked to leave
//	npcs                  none yet
//	players               moves every walking player one tile (terrain.Step)
//	logouts               saves (PlayerSaveRequest, position included), sends
//	                      PlayerLogout and LoggedOut, and removes the players
//	                      marked to leave
//	logins                takes the finished account checks, starts the
//	                      checks of logins waiting for a slot, runs the login
//	                      checks (duplicate → 5, full → 7, sidecar down → 8,
//	                      LoginCheck to ether; with a sidecar that handles
//	                      LoginRelease, LoginCheck and the load went out when
//	                      the login was read, and a wrong password gives the
//	                      lock back), releases the pending logins whose
//	                      clients hung up
//	process_ether_inbound drains EtherDrain events from the sidecar link
//	                      (more batches while a backlog is queued, within
//	                      EtherCatchUp): login answers, saves loaded, lists,
//	                      presence, PMs; Connected → the LoginReleases
//	                      owed from the lost link, PlayerResync for
//	                      everyone, RefreshAll; Disconnected with the link
//	                      still down → 8 to the logins pending; then answers
//	                      13 to the logins pending PendingTicks ticks (after
//	                      the drain: an answer that arrived in time is not
//	                      overtaken)
//	zones                 none yet (ROWS zones)
//	info                  Position to players who moved; Nearby (players within
//	                      15 tiles) when it changed: each occupied tile's list
//	                      is built once (from the players sorted by tile)
//	                      and shared by its occupants, each player's entry
//	                      encoded once; the lists, then the frames, in
//	                      parallel shares, one worker a core
//	outputs               queues each client's frames of this tick as one
//	                      chunk, waking no writer
//	cleanup               releases the connections the engine is done with
//
// After the phases (and their timing) the writers are woken all at once
// (Client.Ready; the wake-up is timed as Stats.Release): inside the tick,
// ~2,000 woken writers took the other core and the tick was preempted.
//
// Queues and their drop policies:
//   - accepts (network → tick, Config.AcceptQueue): Attach fails with ErrBusy
//     when full; the network layer closes the connection.
//   - a client's inbound queue (Config.InQueue messages): Client.Deliver on a
//     full queue returns false and the client is disconnected (flooding,
//     counted); the inputs phase empties it every tick.
//   - a client's outbound queue (Config.OutQueue chunks, one chunk per tick):
//     full means a slow reader: the connection is closed (Conn.Close) and the
//     player leaves as on a disconnect, saved (counted). The tick never waits.
//   - account checks in flight (Config.MaxAuthInFlight): beyond it a Login
//     waits for a free one, in arrival order, as long as its client stays
//     (not idled out; a hang-up releases it with no hash spent), at most as
//     many as the world has free places (more are answered 7); what would
//     refuse it at arrival (shutdown 14, full 7, no sidecar link 8) answers
//     it as soon as it holds. Results come back on a channel with room for
//     every check in flight, so a checker never blocks. A check waits its
//     turn for a hashing slot (account's bound on hashes in flight) until
//     its client hangs up: waiting is not failing, and no storm login is
//     answered 13 for want of a slot.
//   - the sidecar link (etherlink): Send never blocks (its own bounded queue);
//     Drain takes EtherDrain events a batch, one batch a tick unless a
//     backlog is queued, then more batches while the phase has run less
//     than EtherCatchUp (1 ms): the one exception to the design's 100 ether
//     messages a tick, without which a storm's backlog only grows.
//
// Threading rule: all player and connection state is owned by the tick
// goroutine (the one calling Tick, which Run does). Other goroutines reach the
// engine only through Attach, Client.Deliver, Client.Hangup, BeginShutdown,
// Stats, Stopping and the admin.Console methods, which are safe for
// concurrent use.
//
// Admin console (admin.go): Status, Players, Say, Kick, Save and Shutdown
// put a request with a buffered reply channel on a bounded queue
// (AdminQueue) and wait for the answer or for their ctx; the inputs phase
// answers them first thing, so nothing touches player state off the tick.
// Shutdown counts down on tick time, announcing "World shutting down in N
// seconds" at its start and at 3600/1800/600/300/120/60/30/10/5/4/3/2/1
// seconds left; at zero logins stop (14), every player leaves with reason
// 2, saved, and Stopping closes after that tick.
//
// Undeliverable private messages: ether drops a PM to an offline, hidden or
// ignoring player and sends nothing back, so the world decides from what it
// knows: a PM is sent to ether only when the target is on the sender's friend
// list and the last FriendStatus the world has for it is online (node ≠ 0);
// otherwise the sender gets "That player is currently offline." at once. A PM
// that ether still drops (an ignore the world cannot see) is lost silently.
// Until ether's FriendListComplete for the sender has arrived the world does
// not know yet, so such a PM is held (at most 8 per player) and decided when
// the list is complete, or with what the world knows after 10 ticks.
//
// Saves: a player's save is a 12-byte versioned blob (save.go: magic
// "CWSV", version 1, position, chat modes) stored by ether
// (PlayerSaveRequest at logout, PlayerLoadRequest at login). A save made
// while the link is down, or with ether off, is kept in the world's memory
// and sent on the next Connected; a blob that does not decode starts the
// player on a spawn tile (counted in Stats.BadSaves).
//
// Seams for the next layers: the network listeners call Attach and feed
// the Client; main calls New and Run; /status and /metrics read Stats;
// the admin console calls the Console methods; main stops the process when
// Stopping closes.
//
// worldsrv's main and network listeners import it; it imports ether/proto,
// worldsrv/proto, worldsrv/terrain and worldsrv/etherlink.
package engine
