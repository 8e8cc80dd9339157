// panel.js — the social panel: friends (online dot, world number), ignores,
// private messages as a chat, the private-mode switch, and toasts.
'use strict';
(() => {
  const cw = window.corrosionWorld;
  const { C, Out, NODE_OFFSET, MODE_NAMES, enc, validName, encode37, display, plain, keyOf } = cw.proto;
  const { $, el, game, send } = cw.conn;
  const { requestDraw } = cw.map;

  const panelEl = $('panel');
  let modeTimer = 0;
  let unread = 0;
  const MODE_TIMEOUT_MS = 6000;
  const FRIEND_TIMEOUT_MS = 8000;
  const CHAT_KEEP = 200;
  const TOAST_MS = 6000;

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

  // submitName handles the add form of list ('friend' or 'ignore'): it
  // checks the typed name, refuses one already in have (already(shown) says
  // why), sends op and, once sent, clears the input and returns [key, shown];
  // else it shows the reason under the form and returns null.
  function submitName(list, op, have, already) {
    const got = checkName($(list + '-name').value, list + '-error');
    if (!got) return null;
    const [name, key] = got;
    const shown = display(plain(name));
    if (have.has(key)) { $(list + '-error').textContent = already(shown); return null; }
    if (!send(new Out(op).str8(plain(name)))) { $(list + '-error').textContent = 'Not connected to the world.'; return null; }
    $(list + '-name').value = '';
    return [key, shown];
  }

  $('friend-add').onsubmit = (e) => {
    e.preventDefault();
    const sent = submitName('friend', C.friendAdd, game.friends, (shown) => `${shown} is already on your friends list.`);
    if (!sent) return;
    const [key, shown] = sent;
    game.friends.set(key, { name: shown, node: 0, pending: true });
    renderFriends();
    setTimeout(() => {
      const f = game.friends.get(key);
      if (f && f.pending) { game.friends.delete(key); renderFriends(); $('friend-error').textContent = `The world did not add ${shown}.`; }
    }, FRIEND_TIMEOUT_MS);
  };

  $('ignore-add').onsubmit = (e) => {
    e.preventDefault();
    const sent = submitName('ignore', C.ignoreAdd, game.ignores, (shown) => `${shown} is already ignored.`);
    if (!sent) return;
    const [key, shown] = sent;
    game.ignores.set(key, shown);
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
  // modeAnswered takes the world's ChatSettings: the modes now in force.
  function modeAnswered(mode) {
    game.chatMode = mode;
    game.wantedMode = null;
    clearTimeout(modeTimer);
    renderMode();
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

  cw.panel = { renderFriends, renderIgnores, renderMode, modeAnswered, addChat, openPanel, toast };
})();
