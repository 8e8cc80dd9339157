// Package world wires one world process from its configuration: the
// database migration, the terrain, the ether sidecar (spawned, connected or
// off) and its link, the accounts, the tick engine, the HTTP surface (with
// /ws and /metrics), and the game listener. worldsrv's main calls New and
// Run; nothing else imports it. The shutdown order is written on Run.
package world
