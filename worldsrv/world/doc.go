// Package world wires one world process from its configuration: the
// database migration, the terrain, the ether sidecar (spawned, connected or
// off) and its link, the accounts, the tick engine, the HTTP surface (with
// /ws and /metrics), the game listener, and the admin console (Source RCON
// and WebRCON, when --rcon-password is set). worldsrv's main calls New and
// Run; nothing else imports it. The shutdown order is written on Run.
package world
