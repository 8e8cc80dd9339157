// Package httpapi is the world's HTTP surface that needs no game state of
// its own: /health, /ready, /status, /metrics, /map.png and /map.bin. It
// reads the running world through the small interfaces it defines
// (StatusSource, Probe), which the engine satisfies; more routes (/ws,
// /client, /rcon/{password}) are added with Server.Handle.
package httpapi
