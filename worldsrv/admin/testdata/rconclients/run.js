// Runs one third-party Node RCON client against a Source RCON server and
// prints one JSON line: {"ok":true,"replies":[...]} or {"ok":false,"error":...}.
// Usage: node run.js <rcon-srcds|rcon-client> <port> <password> <command>...
// Every step has a deadline, so a client that hangs (rcon-srcds waits
// forever for a packet it has already been sent) fails with words.
'use strict';

const [client, port, password, ...commands] = process.argv.slice(2);
const stepMs = 5000;

function deadline(what, p) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${client}: no answer to ${what} within ${stepMs} ms (the client hangs)`)), stepMs);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

async function srcds() {
  const Rcon = require('rcon-srcds').default;
  const c = new Rcon({ host: '127.0.0.1', port: Number(port), timeout: stepMs });
  await deadline('auth', c.authenticate(password));
  const replies = [];
  for (const cmd of commands) replies.push(await deadline(JSON.stringify(cmd), c.execute(cmd)));
  await c.disconnect();
  return replies;
}

async function rconClient() {
  const { Rcon } = require('rcon-client');
  const c = await deadline('auth', Rcon.connect({ host: '127.0.0.1', port: Number(port), password, timeout: stepMs }));
  const replies = [];
  for (const cmd of commands) replies.push(await deadline(JSON.stringify(cmd), c.send(cmd)));
  await c.end();
  return replies;
}

const run = { 'rcon-srcds': srcds, 'rcon-client': rconClient }[client];
if (!run) {
  console.log(JSON.stringify({ ok: false, error: `unknown client ${client}` }));
  process.exit(2);
}
run().then(
  (replies) => { console.log(JSON.stringify({ ok: true, replies })); process.exit(0); },
  (err) => { console.log(JSON.stringify({ ok: false, error: String(err && err.message || err) })); process.exit(1); },
);
