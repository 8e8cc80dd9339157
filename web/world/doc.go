// Package world is the world's browser client: the page at /client (a templ
// component) and its embedded static assets under /client/static/, served
// by worldsrv on its HTTP port. The page's script speaks the world client
// protocol (docs/world-protocol.md) over the world's /ws WebSocket. It
// imports no panel code (DESIGN.md section 2); worldsrv imports it, under
// the name webworld.
package world
