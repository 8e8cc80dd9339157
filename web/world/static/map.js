// map.js — the map stage: /map.png drawn on a canvas with the players on it,
// animated one tile per tick; click or tap to walk, drag to pan, zoom.
'use strict';
(() => {
  const cw = window.corrosionWorld;
  const { C, Out } = cw.proto;
  const { $, conn, game, send } = cw.conn;
  const PNG_SCALE = 2; // map.png pixels per tile

  const canvas = $('map');
  const ctx = canvas.getContext('2d');
  const ZOOMS = [4, 6, 8, 10, 12, 16, 20, 24, 32]; // CSS pixels per tile
  const view = { zoom: 4, follow: true, hover: null, cam: { x: 0, y: 0 }, img: null, imgReady: false, pending: false, last: 0 };
  const tilePx = () => ZOOMS[view.zoom];

  function loadMap() {
    if (view.img) return;
    const img = new Image();
    img.onload = () => { view.imgReady = true; requestDraw(); };
    img.onerror = () => cw.panel.toast('The map image could not be loaded; players are still shown.');
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
    // You are the biggest, brightest mark on the map (the spawn plaza under you is
    // muted stone); others are smaller dots.
    const r = kind === 'self' ? Math.max(10, t * 0.8) : Math.max(5, t * 0.42);
    ctx.fillStyle = 'rgba(0,0,0,0.35)';
    ctx.beginPath(); ctx.ellipse(x, y + r * 0.8, r, r * 0.45, 0, 0, Math.PI * 2); ctx.fill();
    if (kind === 'self') { // a halo, so you stand out on any ground
      ctx.fillStyle = 'rgba(255, 211, 77, 0.35)';
      ctx.beginPath(); ctx.arc(x, y, r + 6, 0, Math.PI * 2); ctx.fill();
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

  // ---- input ----
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
    else if (e.key === 'Escape') cw.panel.openPanel(false);
  });

  cw.map = { view, canvas, loadMap, snapCamera, requestDraw, holdTarget };
})();
