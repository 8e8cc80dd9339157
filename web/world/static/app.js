// app.js — the page's screens and the world's frames: the handler for each
// world opcode, the login screen, the game screen, the connection badge and
// banner, logging out, and the start. Loaded last: it wires the others.
'use strict';
(() => {
  const cw = window.corrosionWorld;
  const { W, Out, C, LOGIN_OK, LOGIN_ALREADY, LOGIN_TEXT, LOGOUT_TEXT, LOGOUT_KICKED, NODE_OFFSET, MAX_PASSWORD, enc, validName, encode37, display, nameOf, keyOf } = cw.proto;
  const { $, conn, game, send, connect, endSession } = cw.conn;
  const { view, canvas, loadMap, snapCamera, requestDraw, holdTarget } = cw.map;
  const { renderFriends, renderIgnores, renderMode, modeAnswered, addChat, toast } = cw.panel;

  // ---- frames ----
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
      modeAnswered({ pub: r.u8(), priv: r.u8(), trade: r.u8() });
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
    $('stage').classList.remove('down');
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

  // ---- screens ----
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
    const bytes = enc.encode(pass).length;
    if (bytes === 0 || bytes > MAX_PASSWORD) { $('login-error').textContent = `A password is 1–${MAX_PASSWORD} bytes (${MAX_PASSWORD} letters or digits); this one is ${bytes}.`; return; }
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

  cw.app = { handlers, setConn, showBanner, showLogin };
  showLogin('');
})();
