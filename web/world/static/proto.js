// proto.js — the world client protocol (docs/world-protocol.md) as the page
// needs it: opcodes, codes in words, name37, and the frame codec. No DOM.
// The client is five classic scripts loaded in order with defer (proto,
// conn, map, panel, app); each adds its part to window.corrosionWorld.
'use strict';
(() => {
  const cw = (window.corrosionWorld ??= {});

  const C = { login: 1, logout: 2, friendAdd: 3, friendDel: 4, ignoreAdd: 5, ignoreDel: 6, pm: 7, chat: 8, keepalive: 9, walk: 10 };
  const W = { loginResponse: 1, friendStatus: 2, ignoreList: 3, pmIn: 4, friendsLoaded: 5, chat: 6, system: 7, logout: 8, mapInfo: 9, position: 10, nearby: 11 };
  const MAX_PAYLOAD = 4096;
  const NODE_OFFSET = 9; // world number = node id − 9
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
  const MAX_PASSWORD = 20; // bytes: the world answers a longer one 3, "invalid username or password"
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
  // plain is a typed name as the world's frames carry it: lower case, spaces.
  const plain = (name) => name.toLowerCase().replace(/_/g, ' ');
  // keyOf is a name37 as a Map key.
  const keyOf = (v) => v.toString();

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

  cw.proto = {
    C, W, MAX_PAYLOAD, NODE_OFFSET, LOGIN_OK, LOGIN_ALREADY, LOGIN_TEXT, LOGOUT_TEXT, LOGOUT_KICKED, MODE_NAMES, MAX_PASSWORD,
    enc, validName, encode37, decode37, display, nameOf, plain, keyOf, Out, In, Malformed,
  };
  Object.assign(cw, { encode37, decode37, display }); // for tests and the curious
})();
