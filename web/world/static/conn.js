// conn.js — the session with the world: the page's state (conn, game), the
// WebSocket, reading frames into the handlers app.js defines, keepalives,
// and reconnecting with backoff when a session is still wanted.
'use strict';
(() => {
  const cw = window.corrosionWorld;
  const { C, MAX_PAYLOAD, Out, In, Malformed } = cw.proto;

  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  const body = document.body;
  const WORLD = Number(body.dataset.world);
  const NODE = Number(body.dataset.node);
  const wsURL = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + (body.dataset.ws || '/ws');
  const KEEPALIVE_MS = 10000;
  const RECONNECT_MAX_S = 10;
  const LOGIN_TIMEOUT_MS = 15000;

  const conn = {
    ws: null, // the live socket, or null
    creds: null, // { name, pass } while a session is wanted (kept in memory only)
    loggedIn: false,
    friendsLoaded: false, // FriendsLoaded came: later status changes are news
    leaving: false, // the player pressed Log out
    lastSent: 0,
    retries: 0,
    retryTimer: 0,
    countdown: 0,
    why: '', // the world's last Logout reason, in words, for the reconnect banner
  };

  const game = {
    me: null, // { name, key, pid }
    map: null, // { seed, biome, width, height }
    pos: null, // { x, y } last Position
    target: null, // { x, y } last Walk
    drawn: null, // { x, y } animated own position
    nearby: new Map(), // pid → { name, key, x, y, dx, dy }
    friends: new Map(), // key → { name, node, pending }
    ignores: new Map(), // key → name
    chatMode: { pub: 0, priv: 0, trade: 0 },
    wantedMode: null,
  };

  function send(out) {
    if (!conn.ws || conn.ws.readyState !== WebSocket.OPEN) return false;
    conn.ws.send(out.frame());
    conn.lastSent = Date.now();
    return true;
  }

  function connect() {
    clearTimeout(conn.retryTimer);
    const ws = new WebSocket(wsURL);
    ws.binaryType = 'arraybuffer';
    conn.ws = ws;
    conn.loggedIn = false;
    conn.leaving = false;
    cw.app.setConn('connecting', conn.retries ? 'Reconnecting…' : 'Connecting…');
    ws.onopen = () => send(new Out(C.login).str8(conn.creds.name).str8(conn.creds.pass));
    // A world that never answers the login must not leave a spinner forever.
    setTimeout(() => {
      if (conn.ws === ws && !conn.loggedIn) { conn.why = `World ${WORLD} did not answer the login in ${LOGIN_TIMEOUT_MS / 1000} s.`; ws.close(); }
    }, LOGIN_TIMEOUT_MS);
    ws.onmessage = (ev) => { if (conn.ws === ws) receive(ev.data); };
    ws.onclose = () => { if (conn.ws === ws) closed(); };
  }

  function receive(data) {
    if (!(data instanceof ArrayBuffer) || data.byteLength < 3) return;
    const dv = new DataView(data);
    const len = dv.getUint16(0);
    if (len > MAX_PAYLOAD || len + 2 !== data.byteLength) {
      console.warn('world client: malformed frame of', data.byteLength, 'bytes');
      return;
    }
    const op = dv.getUint8(2);
    const handler = cw.app.handlers[op];
    if (!handler) return; // unknown opcodes are ignored
    if (!conn.loggedIn && op !== cw.proto.W.loginResponse) return;
    try {
      handler(new In(dv));
    } catch (e) {
      if (!(e instanceof Malformed)) throw e; // a bug here must show
      console.warn('world client: cannot read frame', op, e.message);
    }
  }

  // closed: the socket ended — reconnect if a session is still wanted.
  function closed() {
    const wasIn = conn.loggedIn;
    conn.ws = null;
    conn.loggedIn = false;
    if (conn.leaving || !conn.creds) {
      conn.leaving = false;
      return;
    }
    if (!wasIn && conn.retries === 0) {
      cw.app.showLogin(conn.why || `Could not reach World ${WORLD}: the connection closed. Try again.`);
      conn.why = '';
      return;
    }
    scheduleReconnect(conn.why || 'Connection to the world lost.');
    conn.why = '';
  }

  function scheduleReconnect(why) {
    clearTimeout(conn.retryTimer);
    conn.retries++;
    conn.countdown = Math.min(RECONNECT_MAX_S, 2 ** (conn.retries - 1));
    const tick = () => {
      if (conn.countdown <= 0) { cw.app.showBanner('Reconnecting…'); connect(); return; }
      cw.app.setConn('reconnecting', `Reconnecting in ${conn.countdown} s`);
      cw.app.showBanner(`${why} Reconnecting in ${conn.countdown} s…`);
      conn.countdown--;
      conn.retryTimer = setTimeout(tick, 1000);
    };
    $('stage').classList.add('down');
    tick();
  }

  function endSession(message) {
    conn.creds = null;
    conn.retries = 0;
    clearTimeout(conn.retryTimer);
    if (conn.ws) { conn.leaving = true; conn.ws.close(); }
    cw.app.showLogin(message);
  }

  setInterval(() => {
    if (conn.loggedIn && Date.now() - conn.lastSent >= KEEPALIVE_MS) send(new Out(C.keepalive));
  }, KEEPALIVE_MS / 2);

  cw.conn = { $, el, WORLD, NODE, conn, game, send, connect, endSession };
})();
