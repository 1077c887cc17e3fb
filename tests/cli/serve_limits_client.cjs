// gql serve's subscription limits from the configuration file
// (test_serve_redis.sh): subscription.max_opened_subscriptions,
// max_subscriptions_per_connection, init_timeout, ping_interval, and
// max_message and enabled: false, seen by raw `ws` 8 sockets speaking
// graphql-transport-ws (the same limits given as flags or in the file).
// Usage: node serve_limits_client.cjs PORT_LIMITED PORT_OFF [MAX_MESSAGE]
// (NODE_PATH: ws).
'use strict';
const assert = require('node:assert/strict');
const WebSocket = require('ws');

const [port, portOff, maxMessage] = process.argv.slice(2);
let failures = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function check(name, fn) {
  const timer = new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), 8000).unref());
  try {
    await Promise.race([fn(), timer]);
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : JSON.stringify(e)}`);
  }
}

function raw(p = port, opts = {}) {
  const ws = new WebSocket(`ws://127.0.0.1:${p}/graphql`, ['graphql-transport-ws'], opts);
  const messages = [];
  let waiter = null;
  ws.on('message', (d) => {
    messages.push(JSON.parse(String(d)));
    if (waiter) waiter();
  });
  ws.on('error', () => {});
  const closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const opened = new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('unexpected-response', (req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  async function next() {
    while (!messages.length) await new Promise((r) => (waiter = r));
    return messages.shift();
  }
  const send = (m) => ws.send(JSON.stringify(m));
  return { ws, opened, closed, next, send };
}

async function acked(opts) {
  const r = raw(port, opts);
  await r.opened;
  r.send({ type: 'connection_init' });
  assert.deepEqual(await r.next(), { type: 'connection_ack' });
  return r;
}

const sub = (id, room) => ({ id, type: 'subscribe', payload: { query: `subscription { messages(room: "${room}") { text } }` } });

(async () => {
  await check('connection_init timeout from the config (300ms): 4408', async () => {
    const r = raw();
    await r.opened;
    const t0 = Date.now();
    const c = await r.closed;
    assert.equal(c.code, 4408);
    assert.ok(Date.now() - t0 < 1500, `closed after ${Date.now() - t0} ms`);
  });

  await check('per connection (3) and in the server (4): the extra subscribe gets an error', async () => {
    const a = await acked();
    for (const id of ['1', '2', '3', '4']) a.send(sub(id, 'x'));
    const e4 = await a.next();
    assert.deepEqual([e4.id, e4.type], ['4', 'error']);
    assert.match(e4.payload[0].message, /Too many operations in progress on this connection \(the limit is 3\)/);
    const b = await acked();
    b.send(sub('5', 'x'));
    b.send(sub('6', 'x'));
    const e6 = await b.next();
    assert.deepEqual([e6.id, e6.type], ['6', 'error']);
    assert.match(e6.payload[0].message, /Too many subscriptions are open on this server/);
    a.send({ id: '1', type: 'complete' }); // one frees up
    await sleep(100);
    b.send(sub('7', 'x'));
    b.send({ id: 'q', type: 'subscribe', payload: { query: '{ ok }' } });
    assert.deepEqual(await b.next(), { id: 'q', type: 'next', payload: { data: { ok: true } } });
    assert.deepEqual(await b.next(), { id: 'q', type: 'complete' });
    a.ws.close(1000);
    b.ws.close(1000);
    await Promise.all([a.closed, b.closed]);
    // the sockets' subscriptions were released: four open again
    const c = await acked();
    for (const id of ['a', 'b', 'c']) c.send(sub(id, 'x'));
    const d = await acked();
    d.send(sub('d', 'x'));
    d.send({ id: 'q', type: 'subscribe', payload: { query: '{ ok }' } });
    assert.equal((await d.next()).id, 'q', 'no error for d');
    c.ws.close(1000);
    d.ws.close(1000);
    await Promise.all([c.closed, d.closed]);
  });

  await check('ping_interval (500ms): a peer that answers pings stays, one that does not is dropped', async () => {
    const live = await acked();
    const dead = await acked({ autoPong: false });
    let pings = 0;
    live.ws.on('ping', () => pings++);
    const c = await dead.closed;
    assert.equal(c.code, 1006); // dropped without a close frame (graphql-ws: 4499)
    assert.ok(pings >= 2, `${pings} pings`);
    assert.equal(live.ws.readyState, WebSocket.OPEN);
    live.ws.close(1000);
    await live.closed;
  });

  if (maxMessage)
    await check(`max_message (${maxMessage}): a message one byte over closes 1009, one at it does not`, async () => {
      const n = Number(maxMessage);
      const fit = await acked();
      // a ping whose payload pads the message to exactly n bytes: answered
      const pad = (len) => JSON.stringify({ type: 'ping', payload: { p: 'x'.repeat(len) } });
      const at = pad(n - pad(0).length);
      assert.equal(at.length, n);
      fit.ws.send(at);
      assert.equal((await fit.next()).type, 'pong');
      const over = await acked();
      over.ws.send(pad(n + 1 - pad(0).length));
      assert.equal((await over.closed).code, 1009);
      fit.ws.close(1000);
      await fit.closed;
    });

  await check('enabled: false: no upgrade (answered as HTTP)', async () => {
    const r = raw(portOff);
    await assert.rejects(r.opened, /HTTP 400/);
  });

  console.log(failures ? `${failures} failed` : 'all passed');
  process.exit(failures ? 1 : 0);
})();
