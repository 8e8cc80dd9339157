package world

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Paths the client is served on.
const (
	// PagePath is the page: /client?world=W.
	PagePath = "/client"
	// WebSocketPath is where the page's script connects, on the same host.
	WebSocketPath = "/ws"
)

// World numbers a page may name: node ids 10–254 are worlds 1–245. A world
// whose node id is outside that (1–9, 255: development) still serves its own
// page, under its own number.
const (
	MinWorld = 1
	MaxWorld = 245
	// minNode and maxNode bound the node id a world may run as.
	minNode = 1
	maxNode = 255
	// nodeOffset is node id − world number.
	nodeOffset = 9
	// httpPortBase is a world's HTTP port minus its node id (DESIGN.md
	// section 6: HTTP 8070+N).
	httpPortBase = 8070
)

// CSP is the page's Content-Security-Policy: scripts, styles and sockets
// from this host only, the map as an image, no inline code, no framing.
const CSP = "default-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"

// Options say which world serves the page.
type Options struct {
	World int // this world's number (node id − 9), for node ids 1–255
}

// ErrOptions marks bad Options; the message names the field.
var ErrOptions = errors.New("webworld: bad option")

// Client serves the page (PagePath) and its assets (StaticPrefix). Mount
// it on both patterns.
type Client struct {
	world  int          // immutable after New
	assets http.Handler // immutable after New
}

var _ http.Handler = (*Client)(nil)

// New checks o and builds the handler.
func New(o Options) (*Client, error) {
	if node := o.World + nodeOffset; node < minNode || node > maxNode {
		return nil, fmt.Errorf("%w: World %d is not %d–%d (node id %d–%d)", ErrOptions, o.World,
			minNode-nodeOffset, maxNode-nodeOffset, minNode, maxNode)
	}
	return &Client{world: o.World, assets: static()}, nil
}

// ServeHTTP serves the page and the assets.
//
// /client?world=W: W this world's number → the page; W another world's
// number → 302 to the same host name on that world's HTTP port
// (8070 + 9 + W), same path and query; no world → 302 to this world's own
// ?world=; anything else → 400 saying what is wrong.
func (c *Client) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, StaticPrefix) {
		c.assets.ServeHTTP(w, r)
		return
	}
	if r.URL.Path != PagePath {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	raw, ok := q["world"]
	if !ok {
		q.Set("world", strconv.Itoa(c.world))
		redirect(w, r, "", q)
		return
	}
	n, err := parseWorld(raw, c.world)
	if err != nil {
		badRequest(w, err)
		return
	}
	if n != c.world {
		host, err := otherWorldHost(r.Host, n)
		if err != nil {
			badRequest(w, err)
			return
		}
		redirect(w, r, host, q)
		return
	}
	c.servePage(w, r)
}

// parseWorld reads the one world= value: own, or MinWorld–MaxWorld.
func parseWorld(raw []string, own int) (int, error) {
	if len(raw) != 1 {
		return 0, fmt.Errorf("world= is given %d times; give it once", len(raw))
	}
	n, err := strconv.Atoi(raw[0])
	if err == nil && n == own {
		return n, nil
	}
	if err != nil || n < MinWorld || n > MaxWorld {
		return 0, fmt.Errorf("world=%q is not a world number: it must be a whole number from %d to %d", raw[0], MinWorld, MaxWorld)
	}
	return n, nil
}

// otherWorldHost is host's name with world n's HTTP port.
func otherWorldHost(host string, n int) (string, error) {
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]") // no port given
	}
	if !hostName(name) {
		return "", fmt.Errorf("the request's Host %q is not a host name to send you on to world %d from", host, n)
	}
	return net.JoinHostPort(name, strconv.Itoa(httpPortBase+nodeOffset+n)), nil
}

// hostName reports whether s looks like a DNS name or an IP address: the
// characters those use, nothing else (a redirect never carries odd bytes).
func hostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	if strings.Contains(s, ":") {
		a, err := netip.ParseAddr(s)
		return err == nil && a.Zone() == ""
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

// redirect answers 302 to PagePath with query q, on host (empty: this
// host, a relative redirect).
func redirect(w http.ResponseWriter, r *http.Request, host string, q url.Values) {
	u := url.URL{Path: PagePath, RawQuery: q.Encode()}
	if host != "" {
		u.Host = host
		u.Scheme = "http"
		if r.TLS != nil {
			u.Scheme = "https"
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// badRequest is the one error page: 400, plain text, what is wrong.
func badRequest(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = fmt.Fprintf(w, "Bad request: %v.\nExample: %s?world=1 opens world 1.\n", err, PagePath)
}

func (c *Client) servePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", CSP)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method == http.MethodHead {
		return
	}
	_ = Page(PageData{World: c.world, Node: c.world + nodeOffset}).Render(r.Context(), w)
}
