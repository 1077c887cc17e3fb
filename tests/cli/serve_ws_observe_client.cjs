// gql serve's WebSocket metrics after known actions (test_serve_ws_observe.sh):
// sockets open, subscriptions open, events delivered, executions (three
// subscribers of one operation share one execution per event, a fourth
// with other variables has its own), events dropped (a subscriber that
// stops reading), read from /metrics; raw `ws` 8 sockets speaking
// graphql-transport-ws, events published with redis-cli.
// Usage: node serve_ws_observe_client.cjs PORT REDIS_PORT (NODE_PATH: ws).
'use strict';
const assert = require('node:assert/strict');
const { execFile, execFileSync } = require('node:child_process');
const http = require('node:http');
const WebSocket = require('ws');

const [port, rport] = process.argv.slice(2);
let failures = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function check(name, fn) {
  const timer = new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), 60000).unref());
  try {
    await Promise.race([fn(), timer]);
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : JSON.stringify(e)}`);
  }
}

function metrics() {
  return new Promise((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}/metrics`, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          const m = {};
          for (const line of body.split('\n')) {
            const g = /^(gql_(?:websocket|subscription)\w*) (\S+)$/.exec(line);
            if (g) m[g[1]] = Number(g[2]);
          }
          resolve(m);
        });
      })
      .on('error', reject);
  });
}

// The counts, once they say what is expected (the server counts a
// socket's close on its loop, a moment after the client's).
async function expectMetrics(want) {
  let got;
  for (let i = 0; i < 100; i++) {
    got = await metrics();
    if (Object.entries(want).every(([k, v]) => (typeof v === 'function' ? v(got[k]) : got[k] === v))) return got;
    await sleep(50);
  }
  assert.fail(`metrics ${JSON.stringify(got)}, want ${JSON.stringify(want, (k, v) => (typeof v === 'function' ? String(v) : v))}`);
}

function raw() {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, ['graphql-transport-ws']);
  const messages = [];
  let waiter = null;
  ws.on('message', (d) => {
    messages.push(JSON.parse(String(d)));
    if (waiter) waiter();
  });
  ws.on('error', () => {});
  const closed = new Promise((resolve) => ws.on('close', (code) => resolve(code)));
  const opened = new Promise((resolve) => ws.on('open', resolve));
  async function next() {
    while (!messages.length) await new Promise((r) => (waiter = r));
    return messages.shift();
  }
  const send = (m) => ws.send(JSON.stringify(m));
  return { ws, opened, closed, next, send };
}

async function acked() {
  const r = raw();
  await r.opened;
  r.send({ type: 'connection_init' });
  assert.deepEqual(await r.next(), { type: 'connection_ack' });
  return r;
}

const literal = { query: 'subscription { messages(room: "a") { text } }' };
const withVars = { query: 'subscription ($r: String) { messages(room: $r) { text } }', variables: { r: 'a' } };
// (the message from stdin: an argument may not exceed 128 KiB)
const publish = (text) =>
  execFileSync('redis-cli', ['-p', rport, '-x', 'PUBLISH', 'gql:messages'], {
    input: JSON.stringify({ room: 'a', text }),
  });
const publishAsync = (text) =>
  new Promise((resolve, reject) => {
    const p = execFile('redis-cli', ['-p', rport, '-x', 'PUBLISH', 'gql:messages'], (e) => (e ? reject(e) : resolve()));
    p.stdin.end(JSON.stringify({ room: 'a', text }));
  });
const textOf = (m) => m.payload.data.messages.text;

(async () => {
  const subs = [];
  await check('four sockets, four subscriptions: gauges 4 and 4', async () => {
    await expectMetrics({ gql_websocket_connections: 0, gql_subscriptions_open: 0, gql_subscription_events_total: 0 });
    for (let i = 0; i < 4; i++) {
      const r = await acked();
      r.send({ id: `s${i}`, type: 'subscribe', payload: i < 3 ? literal : withVars });
      subs.push(r);
    }
    await expectMetrics({ gql_websocket_connections: 4, gql_subscriptions_open: 4 });
  });

  await check('two events: 8 delivered, 4 executions (three subscribers share one), none dropped', async () => {
    await sleep(200); // the subscriptions are listening
    publish('one');
    publish('two');
    for (const [i, r] of subs.entries()) {
      const a = await r.next();
      const b = await r.next();
      assert.deepEqual([a.id, a.type, textOf(a), b.id, textOf(b)], [`s${i}`, 'next', 'one', `s${i}`, 'two']);
    }
    await expectMetrics({
      gql_subscription_events_total: 8,
      gql_subscription_executions_total: 4,
      gql_subscription_events_dropped_total: 0,
    });
  });

  await check('a socket closes, a subscription completes: gauges 3 and 2', async () => {
    subs[0].ws.close(1000);
    await subs[0].closed;
    subs[3].send({ id: 's3', type: 'complete' });
    await expectMetrics({ gql_websocket_connections: 3, gql_subscriptions_open: 2 });
    publish('three');
    for (const r of [subs[1], subs[2]]) assert.equal(textOf(await r.next()), 'three');
    await expectMetrics({ gql_subscription_events_total: 10, gql_subscription_executions_total: 5 });
  });

  await check('a subscriber that stops reading is dropped; its events count as dropped', async () => {
    const slow = await acked();
    slow.send({ id: 'z', type: 'subscribe', payload: literal });
    await expectMetrics({ gql_subscriptions_open: 3 });
    slow.ws._socket.pause(); // reads nothing more: the kernel's buffers, then gql's 1 MiB bound fill
    // 10 MB: past the kernel's socket buffers (about 5 MB here) and the
    // 1 MiB gql holds for a socket
    const big = 'x'.repeat(400 * 1024);
    const n = 25;
    // (not execFileSync: the readers must go on reading meanwhile)
    for (let i = 0; i < n; i++) await publishAsync(big);
    // the readers get every one
    for (const r of [subs[1], subs[2]])
      for (let i = 0; i < n; i++) assert.equal(textOf(await r.next()).length, big.length);
    await expectMetrics({
      gql_subscription_events_dropped_total: (v) => v >= 1,
      gql_websocket_connections: 3,
      gql_subscriptions_open: 2,
    });
    slow.ws.terminate();
  });

  for (const r of subs.slice(1)) r.ws.close(1000);
  await Promise.all(subs.slice(1).map((r) => r.closed));
  await check('every socket closed: gauges back to 0', async () => {
    await expectMetrics({ gql_websocket_connections: 0, gql_subscriptions_open: 0 });
  });

  console.log(failures ? `${failures} failed` : 'all passed');
  process.exit(failures ? 1 : 0);
})();
