// world.js — the world's browser client. It speaks the world client protocol
// (docs/world-protocol.md) over the world's /ws WebSocket, draws /map.png on a
// canvas with the players on it, and keeps the social panel. Sections:
// protocol · connection · game state · drawing · input · panel · start.
'use strict';
(() => {
  // ======================= protocol =======================
  const C = { login: 1, logout: 2, friendAdd: 3, friendDel: 4, ignoreAdd: 5, ignoreDel: 6, pm: 7, chat: 8, keepalive: 9, walk: 10 };
  const W = { loginResponse: 1, friendStatus: 2, ignoreList: 3, pmIn: 4, friendsLoaded: 5, chat: 6, system: 7, logout: 8, mapInfo: 9, position: 10, nearby: 11 };
  const MAX_PAYLOAD = 4096;
  const NODE_OFFSET = 9; // world number = node id − 9
  const PNG_SCALE = 2; // map.png pixels per tile
  const LOGIN_OK = 2;
  const LOGIN_ALREADY = 5;
  const LOGIN_TEXT = {
    3: 'Invalid username or password.',
    5: 'That player is already logged in (on this world or another).',
    7: 'The world is full. Try again later or pick another world.',
    8: 'The login server is offline. Try again in a moment.',
    9: 'Too many connections from your address.',
    13: 'Could not complete the login (the login check timed out). Try again.',
    14: 'The world is shutting down.',
  };
  const LOGOUT_TEXT = { 0: 'You logged out.', 1: 'You were kicked by an administrator.', 2: 'The world is shutting down.', 3: 'Disconnected: idle for too long.' };
  const LOGOUT_KICKED = 1;
  const MODE_NAMES = ['On', 'Friends', 'Off'];
  const enc = new TextEncoder();
  const dec = new TextDecoder('utf-8', { fatal: true });

  // A valid player name: 1–12 of a-z 0-9 _ space, not starting or ending with _ or space.
  const NAME_RE = /^[a-z0-9](?:[a-z0-9_ ]{0,10}[a-z0-9])?$/;
  const MAX37 = 6582952005840035280n; // 37^12 − 1
  const validName = (s) => NAME_RE.test(s.toLowerCase());

  // encode37 packs a valid name into its base-37 u64 (a BigInt), or null.
  function encode37(name) {
    const s = name.toLowerCase();
    if (!NAME_RE.test(s)) return null;
    let v = 0n;
    for (const ch of s) {
      let d = 0;
      if (ch >= 'a' && ch <= 'z') d = ch.charCodeAt(0) - 96;
      else if (ch >= '0' && ch <= '9') d = ch.charCodeAt(0) - 48 + 27;
      v = v * 37n + BigInt(d);
    }
    while (v !== 0n && v % 37n === 0n) v /= 37n;
    return v;
  }
  // decode37 unpacks a name37 into lower case with spaces, or null when invalid.
  function decode37(v) {
    if (v <= 0n || v > MAX37 || v % 37n === 0n) return null;
    let s = '';
    while (v > 0n) {
      const d = Number(v % 37n);
      v /= 37n;
      s = (d === 0 ? ' ' : d <= 26 ? String.fromCharCode(96 + d) : String.fromCharCode(48 + d - 27)) + s;
    }
    return s;
  }
  // display capitalises the first letter of each word: "iron man" → "Iron Man".
  const display = (s) => s.replace(/(^| )([a-z])/g, (_, a, b) => a + b.toUpperCase());
  const nameOf = (v) => { const s = decode37(v); return s === null ? 'Unknown' : display(s); };

  // Out builds one client frame: length u16, then the payload.
  class Out {
    constructor(op) { this.b = [op]; }
    u8(v) { this.b.push(v & 255); return this; }
    u16(v) { this.b.push((v >> 8) & 255, v & 255); return this; }
    str8(s) { const e = enc.encode(s); this.b.push(e.length, ...e); return this; }
    rest(s) { this.b.push(...enc.encode(s)); return this; }
    frame() {
      const a = new Uint8Array(this.b.length + 2);
      a[0] = this.b.length >> 8; a[1] = this.b.length & 255;
      a.set(this.b, 2);
      return a;
    }
  }
  // In reads one world frame's fields; reading past the end throws Malformed.
  class Malformed extends Error {}
  class In {
    constructor(dv) { this.dv = dv; this.o = 3; } // after length and opcode
    need(n) { if (this.o + n > this.dv.byteLength) throw new Malformed('frame too short'); }
    u8() { this.need(1); return this.dv.getUint8(this.o++); }
    u16() { this.need(2); const v = this.dv.getUint16(this.o); this.o += 2; return v; }
    i32() { this.need(4); const v = this.dv.getInt32(this.o); this.o += 4; return v; }
    u64() { this.need(8); const v = this.dv.getBigUint64(this.o); this.o += 8; return v; }
    rest() {
      let s;
      try { s = dec.decode(new Uint8Array(this.dv.buffer, this.dv.byteOffset + this.o)); } catch { throw new Malformed('text is not UTF-8'); }
      this.o = this.dv.byteLength;
      return s;
    }
  }

  // ======================= connection =======================
  const $ = (id) => document.getElementById(id);
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
    leaving: false, // the player pressed Log out
    lastSent: 0,
    retries: 0,
    retryTimer: 0,
    countdown: 0,
    why: '', // the world's last Logout reason, in words, for the reconnect banner
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
    setConn('connecting', conn.retries ? 'Reconnecting…' : 'Connecting…');
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
    const handler = handlers[op];
    if (!handler) return; // unknown opcodes are ignored
    if (!conn.loggedIn && op !== W.loginResponse) return;
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
      showLogin(conn.why || `Could not reach World ${WORLD}: the connection closed. Try again.`);
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
      if (conn.countdown <= 0) { showBanner('Reconnecting…'); connect(); return; }
      setConn('reconnecting', `Reconnecting in ${conn.countdown} s`);
      showBanner(`${why} Reconnecting in ${conn.countdown} s…`);
      conn.countdown--;
      conn.retryTimer = setTimeout(tick, 1000);
    };
    stage.classList.add('down');
    tick();
  }

  function endSession(message) {
    conn.creds = null;
    conn.retries = 0;
    clearTimeout(conn.retryTimer);
    if (conn.ws) { conn.leaving = true; conn.ws.close(); }
    showLogin(message);
  }

  setInterval(() => {
    if (conn.loggedIn && Date.now() - conn.lastSent >= KEEPALIVE_MS) send(new Out(C.keepalive));
  }, KEEPALIVE_MS / 2);

  // ======================= game state =======================
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
  const keyOf = (v) => v.toString();

  const handlers = {
    [W.loginResponse](r) {
      const code = r.u8();
      if (code !== LOGIN_OK) return loginFailed(code);
      const pid = r.u16();
      r.u8(); // node: this world's own, from the page
      loggedIn(pid);
    },
    [W.mapInfo](r) {
      game.map = { seed: r.u64(), biome: r.u8(), width: r.u16(), height: r.u16() };
      loadMap();
    },
    [W.position](r) {
      const p = { x: r.u16(), y: r.u16() };
      const first = !game.pos;
      game.pos = p;
      if (first || !game.drawn) { game.drawn = { x: p.x, y: p.y }; if (view.follow) snapCamera(); }
      if (game.target && game.target.x === p.x && game.target.y === p.y) game.target = null;
      holdTarget();
      $('pos').textContent = `${p.x}, ${p.y}`;
      requestDraw();
    },
    [W.nearby](r) {
      const n = r.u16();
      const next = new Map();
      for (let i = 0; i < n; i++) {
        const pid = r.u16(), key = r.u64(), x = r.u16(), y = r.u16();
        const old = game.nearby.get(pid);
        next.set(pid, { name: nameOf(key), key: keyOf(key), x, y, dx: old ? old.dx : x, dy: old ? old.dy : y });
      }
      game.nearby = next;
      $('nearby-count').textContent = n === 0 ? 'nobody near' : n === 1 ? '1 player near' : `${n} players near`;
      requestDraw();
    },
    [W.chat](r) {
      game.chatMode = { pub: r.u8(), priv: r.u8(), trade: r.u8() };
      game.wantedMode = null;
      clearTimeout(modeTimer);
      renderMode();
    },
    [W.friendStatus](r) {
      const v = r.u64(), node = r.u8();
      const f = { name: nameOf(v), node, pending: false };
      const was = game.friends.get(keyOf(v));
      game.friends.set(keyOf(v), f);
      if (was && !was.pending && conn.friendsLoaded && (was.node === 0) !== (node === 0)) {
        toast(`${f.name} is ${node === 0 ? 'offline' : 'online at World ' + (node - NODE_OFFSET)}.`);
      }
      renderFriends();
    },
    [W.ignoreList](r) {
      const n = r.u16();
      const next = new Map();
      for (let i = 0; i < n; i++) { const v = r.u64(); next.set(keyOf(v), nameOf(v)); }
      game.ignores = next;
      renderIgnores();
    },
    [W.friendsLoaded]() { conn.friendsLoaded = true; renderFriends(); },
    [W.pmIn](r) {
      const from = nameOf(r.u64());
      r.i32(); r.u8(); // msg_id, level
      const text = r.rest();
      addChat({ kind: 'in', who: from, text });
      if (!$('pm-to').value) $('pm-to').value = from; // ready to reply
      toast(`${from}: ${text}`, 'pm');
    },
    [W.system](r) {
      const text = r.rest();
      addChat({ kind: 'system', text });
      toast(text);
    },
    [W.logout](r) {
      const reason = r.u8();
      if (conn.leaving || reason === LOGOUT_KICKED) { endSession(LOGOUT_TEXT[reason] || LOGOUT_TEXT[0]); return; }
      // Shutting down or idle: the socket closes next; reconnecting says why.
      conn.why = LOGOUT_TEXT[reason] || LOGOUT_TEXT[0];
      showBanner(conn.why);
    },
  };

  function loggedIn(pid) {
    const name = conn.creds.name;
    game.me = { name: display(name.toLowerCase().replace(/_/g, ' ')), key: keyOf(encode37(name)), pid };
    game.pos = game.drawn = game.target = null;
    game.nearby = new Map();
    game.friends = new Map();
    game.ignores = new Map();
    conn.friendsLoaded = false;
    conn.loggedIn = true;
    conn.retries = 0;
    setConn('online', 'Connected');
    hideBanner();
    stage.classList.remove('down');
    showGame();
  }

  function loginFailed(code) {
    const text = LOGIN_TEXT[code] || `Login refused (code ${code}).`;
    // After a lost connection the world may still be saving the old session:
    // close, and closed() schedules the next try.
    if (conn.retries > 0 && code === LOGIN_ALREADY && conn.retries < 6) {
      conn.why = 'The world is still closing your old session.';
      conn.ws.close();
      return;
    }
    endSession(text);
  }

  // ======================= drawing =======================
  const stage = $('stage');
  const canvas = $('map');
  const ctx = canvas.getContext('2d');
  const ZOOMS = [4, 6, 8, 10, 12, 16, 20, 24, 32]; // CSS pixels per tile
  const view = { zoom: 4, follow: true, hover: null, cam: { x: 0, y: 0 }, img: null, imgReady: false, pending: false, last: 0 };
  const tilePx = () => ZOOMS[view.zoom];

  function loadMap() {
    if (view.img) return;
    const img = new Image();
    img.onload = () => { view.imgReady = true; requestDraw(); };
    img.onerror = () => toast('The map image could not be loaded; players are still shown.');
    img.src = '/map.png';
    view.img = img;
  }

  function snapCamera() {
    if (game.drawn) view.cam = { x: game.drawn.x + 0.5, y: game.drawn.y + 0.5 };
  }

  function requestDraw() {
    if (view.pending) return;
    view.pending = true;
    requestAnimationFrame(draw);
  }

  // approach moves v toward target by at most step; it snaps when far.
  function approach(v, target, step) {
    const d = target - v;
    if (Math.abs(d) > 4) return target;
    return Math.abs(d) <= step ? target : v + Math.sign(d) * step;
  }

  // animate steps drawn positions and the camera; true while anything moves.
  function animate(dt) {
    const step = dt / 600; // one tile per tick
    let moving = false;
    if (game.pos && game.drawn) {
      game.drawn.x = approach(game.drawn.x, game.pos.x, step);
      game.drawn.y = approach(game.drawn.y, game.pos.y, step);
      moving ||= game.drawn.x !== game.pos.x || game.drawn.y !== game.pos.y;
    }
    for (const p of game.nearby.values()) {
      p.dx = approach(p.dx, p.x, step);
      p.dy = approach(p.dy, p.y, step);
      moving ||= p.dx !== p.x || p.dy !== p.y;
    }
    if (view.follow) snapCamera();
    return moving;
  }

  function draw(now) {
    view.pending = false;
    const dt = view.last ? Math.min(100, now - view.last) : 16;
    view.last = now;
    const moving = animate(dt);
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#08101c';
    ctx.fillRect(0, 0, w, h);
    const t = tilePx();
    canvas.dataset.tilePx = String(t);
    const ox = w / 2 - view.cam.x * t, oy = h / 2 - view.cam.y * t;
    drawTerrain(ox, oy, t);
    if (view.hover && game.map) {
      ctx.strokeStyle = 'rgba(255, 255, 255, 0.55)';
      ctx.lineWidth = 1;
      ctx.strokeRect(ox + view.hover.x * t + 0.5, oy + view.hover.y * t + 0.5, t - 1, t - 1);
    }
    if (game.target) drawTarget(ox + (game.target.x + 0.5) * t, oy + (game.target.y + 0.5) * t, t);
    for (const p of game.nearby.values()) {
      drawPlayer(ox + (p.dx + 0.5) * t, oy + (p.dy + 0.5) * t, t, p.name, game.friends.has(p.key) ? 'friend' : 'other');
    }
    if (game.drawn && game.me) drawPlayer(ox + (game.drawn.x + 0.5) * t, oy + (game.drawn.y + 0.5) * t, t, game.me.name, 'self');
    if (moving) requestDraw();
    else view.last = 0;
  }

  function drawTerrain(ox, oy, t) {
    if (!game.map) return;
    const mw = game.map.width * t, mh = game.map.height * t;
    ctx.fillStyle = '#0b2340';
    ctx.fillRect(ox, oy, mw, mh);
    if (view.imgReady) {
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(view.img, 0, 0, game.map.width * PNG_SCALE, game.map.height * PNG_SCALE, ox, oy, mw, mh);
    }
    ctx.strokeStyle = 'rgba(0,0,0,0.6)';
    ctx.lineWidth = 2;
    ctx.strokeRect(ox - 1, oy - 1, mw + 2, mh + 2);
  }

  function drawTarget(x, y, t) {
    const r = Math.max(4, t * 0.45);
    ctx.strokeStyle = 'rgba(255, 211, 77, 0.9)';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x - r, y); ctx.lineTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.closePath();
    ctx.stroke();
  }

  const PLAYER_STYLE = {
    self: { fill: '#ffd34d', ring: '#2a1a02', label: '#ffe9a8', font: '700 13px system-ui, sans-serif' },
    friend: { fill: '#3ecf7a', ring: '#0b1a10', label: '#b8f5cf', font: '600 12px system-ui, sans-serif' },
    other: { fill: '#7cc4ff', ring: '#0b1424', label: '#e7ecf5', font: '500 12px system-ui, sans-serif' },
  };

  function drawPlayer(x, y, t, name, kind) {
    const s = PLAYER_STYLE[kind];
    const r = Math.max(4.5, t * (kind === 'self' ? 0.5 : 0.42));
    ctx.fillStyle = 'rgba(0,0,0,0.35)';
    ctx.beginPath(); ctx.ellipse(x, y + r * 0.8, r, r * 0.45, 0, 0, Math.PI * 2); ctx.fill();
    if (kind === 'self') { // a halo, so you stand out on any ground
      ctx.fillStyle = 'rgba(255, 211, 77, 0.35)';
      ctx.beginPath(); ctx.arc(x, y, r + 5, 0, Math.PI * 2); ctx.fill();
    }
    ctx.fillStyle = s.fill;
    ctx.strokeStyle = s.ring;
    ctx.lineWidth = kind === 'self' ? 2.5 : 1.5;
    ctx.beginPath(); ctx.arc(x, y, r, 0, Math.PI * 2); ctx.fill(); ctx.stroke();
    ctx.font = s.font;
    ctx.textAlign = 'center';
    // Your name below your dot, others above theirs: neighbours' labels do not collide.
    const below = kind === 'self';
    ctx.textBaseline = below ? 'top' : 'bottom';
    const ly = below ? y + r + 6 : y - r - 3;
    ctx.lineWidth = 3;
    ctx.strokeStyle = 'rgba(0,0,0,0.8)';
    ctx.strokeText(name, x, ly);
    ctx.fillStyle = s.label;
    ctx.fillText(name, x, ly);
  }

  // ======================= input =======================
  const drag = { id: null, x: 0, y: 0, moved: false };

  canvas.addEventListener('pointerdown', (e) => {
    drag.id = e.pointerId; drag.x = e.clientX; drag.y = e.clientY; drag.moved = false;
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (drag.id !== e.pointerId) { hoverAt(e); return; }
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 6) return;
    drag.moved = true;
    canvas.classList.add('dragging');
    view.follow = false;
    view.cam.x -= dx / tilePx(); view.cam.y -= dy / tilePx();
    drag.x = e.clientX; drag.y = e.clientY;
    requestDraw();
  });
  canvas.addEventListener('pointerup', (e) => {
    if (drag.id !== e.pointerId) return;
    drag.id = null;
    canvas.classList.remove('dragging');
    if (!drag.moved) walkTo(e.clientX, e.clientY);
  });
  canvas.addEventListener('pointercancel', () => { drag.id = null; canvas.classList.remove('dragging'); });
  canvas.addEventListener('pointerleave', () => { view.hover = null; requestDraw(); });

  // tileAt is the map tile under a screen point.
  function tileAt(cx, cy) {
    const rect = canvas.getBoundingClientRect(), t = tilePx();
    return {
      x: Math.floor(view.cam.x + (cx - rect.left - rect.width / 2) / t),
      y: Math.floor(view.cam.y + (cy - rect.top - rect.height / 2) / t),
    };
  }

  // hoverAt outlines the tile under a mouse (not a finger) for aiming.
  function hoverAt(e) {
    if (e.pointerType !== 'mouse' || !game.map) return;
    const h = tileAt(e.clientX, e.clientY);
    if (view.hover && view.hover.x === h.x && view.hover.y === h.y) return;
    view.hover = h;
    requestDraw();
  }
  canvas.addEventListener('wheel', (e) => { e.preventDefault(); zoom(e.deltaY < 0 ? 1 : -1); }, { passive: false });

  // walkTo sends Walk to the tile under a screen point.
  function walkTo(cx, cy) {
    if (!conn.loggedIn || !game.map) return;
    const { x, y } = tileAt(cx, cy);
    if (x < 0 || y < 0 || x >= game.map.width || y >= game.map.height) return;
    if (send(new Out(C.walk).u16(x).u16(y))) {
      game.target = { x, y };
      holdTarget();
      view.follow = true;
      requestDraw();
    }
  }

  // holdTarget keeps the walk marker while the player moves: a walk that
  // stops short (water, a wall) drops it two ticks after the last step.
  let targetTimer = 0;
  function holdTarget() {
    clearTimeout(targetTimer);
    targetTimer = setTimeout(() => { game.target = null; requestDraw(); }, 1500);
  }

  function zoom(d) {
    view.zoom = Math.max(0, Math.min(ZOOMS.length - 1, view.zoom + d));
    requestDraw();
  }
  $('zoom-in').onclick = () => zoom(1);
  $('zoom-out').onclick = () => zoom(-1);
  $('centre').onclick = () => { view.follow = true; snapCamera(); requestDraw(); };
  window.addEventListener('resize', requestDraw);
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || !conn.loggedIn) return;
    if (e.key === '+' || e.key === '=') zoom(1);
    else if (e.key === '-') zoom(-1);
    else if (e.key === 'c' || e.key === 'C') $('centre').click();
    else if (e.key === 'Escape') openPanel(false);
  });

  // ======================= panel =======================
  const panelEl = $('panel');
  let modeTimer = 0;
  let unread = 0;
  const MODE_TIMEOUT_MS = 6000;
  const FRIEND_TIMEOUT_MS = 8000;
  const CHAT_KEEP = 200;
  const TOAST_MS = 6000;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const plain = (name) => name.toLowerCase().replace(/_/g, ' ');

  function renderFriends() {
    const list = $('friends'), names = $('friend-names');
    const rows = [...game.friends.entries()].sort((a, b) => (a[1].node === 0) - (b[1].node === 0) || a[1].name.localeCompare(b[1].name));
    list.replaceChildren(...rows.map(([key, f]) => friendRow(key, f)));
    names.replaceChildren(...rows.map(([, f]) => { const o = el('option'); o.value = f.name; return o; }));
    const online = rows.filter(([, f]) => f.node !== 0).length;
    $('friends-count').textContent = rows.length ? `${online}/${rows.length}` : '';
    $('friends-empty').hidden = rows.length > 0;
    requestDraw();
  }

  function friendRow(key, f) {
    const li = el('li', 'row friend' + (f.pending ? ' pending' : f.node ? ' online' : ''));
    li.dataset.name = plain(f.name);
    const dot = el('span', 'dot' + (f.node && !f.pending ? ' on' : ''));
    const name = el('button', 'name', f.name);
    name.type = 'button';
    name.title = `Message ${f.name}`;
    name.onclick = () => messageTo(f.name);
    const where = el('span', 'where', f.pending ? 'Adding…' : f.node ? `World ${f.node - NODE_OFFSET}` : 'Offline');
    const rm = el('button', 'remove', '×');
    rm.type = 'button';
    rm.title = `Remove ${f.name} from friends`;
    rm.setAttribute('aria-label', rm.title);
    rm.onclick = () => { if (send(new Out(C.friendDel).str8(plain(f.name)))) { game.friends.delete(key); renderFriends(); } };
    li.append(dot, name, where, rm);
    return li;
  }

  function renderIgnores() {
    const rows = [...game.ignores.entries()].sort((a, b) => a[1].localeCompare(b[1]));
    $('ignores').replaceChildren(...rows.map(([key, name]) => {
      const li = el('li', 'row ignore');
      li.dataset.name = plain(name);
      const rm = el('button', 'remove', '×');
      rm.type = 'button';
      rm.title = `Stop ignoring ${name}`;
      rm.setAttribute('aria-label', rm.title);
      rm.onclick = () => { if (send(new Out(C.ignoreDel).str8(plain(name)))) { game.ignores.delete(key); renderIgnores(); } };
      li.append(el('span', 'name', name), rm);
      return li;
    }));
    $('ignores-count').textContent = rows.length ? String(rows.length) : '';
    $('ignores-empty').hidden = rows.length > 0;
  }

  // checkName validates a typed name for a list; it returns [name, key] or
  // shows why not in errId and returns null.
  function checkName(raw, errId) {
    const name = raw.trim();
    const key = encode37(name);
    if (key === null) { $(errId).textContent = 'Not a valid name: 1–12 letters, digits, spaces or _.'; return null; }
    if (game.me && keyOf(key) === game.me.key) { $(errId).textContent = 'That is you.'; return null; }
    $(errId).textContent = '';
    return [name, keyOf(key)];
  }

  $('friend-add').onsubmit = (e) => {
    e.preventDefault();
    const got = checkName($('friend-name').value, 'friend-error');
    if (!got) return;
    const [name, key] = got;
    const shown = display(plain(name));
    if (game.friends.has(key)) { $('friend-error').textContent = `${shown} is already on your friends list.`; return; }
    if (!send(new Out(C.friendAdd).str8(plain(name)))) { $('friend-error').textContent = 'Not connected to the world.'; return; }
    game.friends.set(key, { name: shown, node: 0, pending: true });
    $('friend-name').value = '';
    renderFriends();
    setTimeout(() => {
      const f = game.friends.get(key);
      if (f && f.pending) { game.friends.delete(key); renderFriends(); $('friend-error').textContent = `The world did not add ${shown}.`; }
    }, FRIEND_TIMEOUT_MS);
  };

  $('ignore-add').onsubmit = (e) => {
    e.preventDefault();
    const got = checkName($('ignore-name').value, 'ignore-error');
    if (!got) return;
    const [name, key] = got;
    const shown = display(plain(name));
    if (game.ignores.has(key)) { $('ignore-error').textContent = `${shown} is already ignored.`; return; }
    if (!send(new Out(C.ignoreAdd).str8(plain(name)))) { $('ignore-error').textContent = 'Not connected to the world.'; return; }
    game.ignores.set(key, shown);
    $('ignore-name').value = '';
    renderIgnores();
  };

  function messageTo(name) {
    $('pm-to').value = name;
    showTab('chat');
    $('pm-text').focus();
  }

  $('pm-form').onsubmit = (e) => {
    e.preventDefault();
    const to = $('pm-to').value.trim(), text = $('pm-text').value.trim();
    const bytes = enc.encode(text).length;
    let err = '';
    if (!validName(to)) err = 'Whom to? Type a name (1–12 letters, digits, spaces or _).';
    else if (bytes === 0) err = 'Type a message first.';
    else if (bytes > 80) err = `Too long: ${bytes} bytes, at most 80.`;
    else if (!send(new Out(C.pm).str8(plain(to)).rest(text))) err = 'Not connected to the world.';
    $('pm-error').textContent = err;
    if (err) return;
    addChat({ kind: 'out', who: display(plain(to)), text });
    $('pm-text').value = '';
  };

  function addChat(m) {
    const li = el('li', 'msg ' + m.kind);
    const now = new Date();
    li.append(el('span', 'time', `${String(now.getHours()).padStart(2, '0')}:${String(now.getMinutes()).padStart(2, '0')}`));
    if (m.kind !== 'system') {
      const who = el('span', 'who', m.kind === 'in' ? `From ${m.who}: ` : `To ${m.who}: `);
      if (m.kind === 'in') { who.title = `Reply to ${m.who}`; who.onclick = () => messageTo(m.who); }
      li.append(who);
    }
    li.append(el('span', 'text', m.text));
    const log = $('chat');
    log.append(li);
    while (log.children.length > CHAT_KEEP) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
    $('chat-empty').hidden = true;
    if (m.kind !== 'out' && (panelTab !== 'chat' || !panelVisible())) setUnread(unread + 1);
  }

  function setUnread(n) {
    unread = n;
    for (const id of ['chat-badge', 'menu-badge']) { $(id).textContent = String(n); $(id).hidden = n === 0; }
  }

  let panelTab = 'friends';
  function showTab(tab) {
    panelTab = tab;
    for (const b of document.querySelectorAll('.tabs button')) b.setAttribute('aria-selected', String(b.dataset.tab === tab));
    for (const t of ['friends', 'ignores', 'chat']) $('tab-' + t).hidden = t !== tab;
    if (tab === 'chat') { setUnread(0); const log = $('chat'); log.scrollTop = log.scrollHeight; }
    openPanel(true);
  }
  for (const b of document.querySelectorAll('.tabs button')) b.onclick = () => showTab(b.dataset.tab);

  const phone = () => window.matchMedia('(max-width: 760px)').matches;
  const panelVisible = () => !phone() || panelEl.classList.contains('open');
  function openPanel(open) {
    if (!phone()) return;
    panelEl.classList.toggle('open', open);
    $('menu').setAttribute('aria-expanded', String(open));
    if (open && panelTab === 'chat') setUnread(0);
  }
  $('menu').onclick = () => openPanel(!panelEl.classList.contains('open'));
  $('panel-close').onclick = () => openPanel(false);

  // The private-mode switch: the pressed button is the mode in force; a click
  // sends ChatSettings and the control pulses until the world answers.
  function renderMode() {
    const seg = $('private-mode');
    seg.classList.toggle('pending', game.wantedMode !== null);
    for (const b of seg.querySelectorAll('button')) {
      const m = Number(b.dataset.mode);
      b.setAttribute('aria-pressed', String(m === game.chatMode.priv));
      b.toggleAttribute('data-wanted', m === game.wantedMode);
      b.disabled = game.wantedMode !== null;
    }
    $('privacy-error').textContent = '';
  }
  for (const b of $('private-mode').querySelectorAll('button')) {
    b.onclick = () => {
      const m = Number(b.dataset.mode);
      if (m === game.chatMode.priv) return;
      const cm = game.chatMode;
      if (!send(new Out(C.chat).u8(cm.pub).u8(m).u8(cm.trade))) { $('privacy-error').textContent = 'Not connected to the world.'; return; }
      game.wantedMode = m;
      renderMode();
      clearTimeout(modeTimer);
      modeTimer = setTimeout(() => {
        game.wantedMode = null;
        renderMode();
        $('privacy-error').textContent = `The world did not answer; private chat is still ${MODE_NAMES[game.chatMode.priv]}.`;
      }, MODE_TIMEOUT_MS);
    };
  }

  function toast(text, kind) {
    const t = el('div', 'toast' + (kind ? ' ' + kind : ''), text);
    const box = $('toasts');
    box.append(t);
    while (box.children.length > 4) box.firstElementChild.remove();
    setTimeout(() => t.remove(), TOAST_MS);
  }

  // ======================= screens =======================
  function setConn(state, text) {
    const c = $('conn');
    c.dataset.state = state;
    c.textContent = text;
    document.querySelector('.me-box .dot').classList.toggle('on', state === 'online');
  }
  function showBanner(text) { $('banner-text').textContent = text; $('banner').hidden = false; }
  function hideBanner() { $('banner').hidden = true; }
  $('banner-retry').onclick = () => { if (conn.creds && !conn.ws) { conn.countdown = 0; clearTimeout(conn.retryTimer); connect(); } };

  function showGame() {
    $('login').hidden = true;
    $('game').hidden = false;
    $('me-name').textContent = game.me.name;
    $('panel-me').textContent = game.me.name;
    $('pos').textContent = '–';
    $('logout').disabled = false;
    $('nearby-count').textContent = '';
    setLoginBusy(false);
    renderFriends(); renderIgnores(); renderMode();
    view.follow = true;
    requestDraw();
    canvas.focus();
  }

  function showLogin(message) {
    hideBanner();
    setConn('offline', 'Offline');
    $('game').hidden = true;
    $('login').hidden = false;
    setLoginBusy(false);
    $('login-error').textContent = message || '';
    $('login-pass').value = '';
    $(($('login-name').value ? 'login-pass' : 'login-name')).focus();
  }

  function setLoginBusy(busy) {
    const go = $('login-go');
    go.disabled = busy;
    go.classList.toggle('busy', busy);
    go.querySelector('.label').textContent = busy ? 'Connecting…' : 'Play';
    $('login-name').disabled = busy;
    $('login-pass').disabled = busy;
  }

  $('login-form').onsubmit = (e) => {
    e.preventDefault();
    const name = $('login-name').value.trim(), pass = $('login-pass').value;
    if (!validName(name)) { $('login-error').textContent = 'A name is 1–12 letters, digits, spaces or _, not starting or ending with a space or _.'; return; }
    if (pass.length === 0 || enc.encode(pass).length > 255) { $('login-error').textContent = 'Type a password (at most 255 bytes).'; return; }
    $('login-error').textContent = '';
    conn.creds = { name, pass };
    conn.retries = 0;
    conn.leaving = false;
    setLoginBusy(true);
    connect();
  };

  $('logout').onclick = () => {
    const creds = conn.creds;
    $('logout').disabled = true;
    conn.leaving = true;
    if (!send(new Out(C.logout))) { endSession(LOGOUT_TEXT[0]); }
    // The world answers Logout and closes; if it does not within 3 s, leave anyway.
    setTimeout(() => { $('logout').disabled = false; if (creds && conn.creds === creds) endSession(LOGOUT_TEXT[0]); }, 3000);
  };

  // ======================= start =======================
  window.corrosionWorld = { encode37, decode37, display }; // for tests and the curious
  showLogin('');
})();
