// The npm graphql-ws 6 client (and raw `ws` 8 sockets for what the client
// never sends) against ws_peer_server: gql's WebSocket framing and
// graphql-transport-ws machine as the real clients see them.
// Usage: node ws_npm_client.cjs PORT (NODE_PATH: graphql-ws and ws).
'use strict';
const assert = require('node:assert/strict');
const { createClient } = require('graphql-ws/client');
const WebSocket = require('ws');

const url = `ws://127.0.0.1:${process.argv[2]}/graphql`;
let failures = 0;

async function check(name, fn) {
  const timer = new Promise((_, rej) =>
    setTimeout(() => rej(new Error('timed out')), 5000).unref(),
  );
  try {
    await Promise.race([fn(), timer]);
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : JSON.stringify(e)}`);
  }
}

function client(extra) {
  return createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true, ...extra });
}

function collect(c, query) {
  return new Promise((resolve, reject) => {
    const got = [];
    c.subscribe({ query }, { next: (v) => got.push(v), error: reject, complete: () => resolve(got) });
  });
}

// A raw socket: messages in order, and the close code and reason.
function raw(protocol = 'graphql-transport-ws') {
  const ws = new WebSocket(url, protocol === null ? [] : [protocol]);
  const messages = [];
  let waiter = null;
  ws.on('message', (d) => {
    messages.push(JSON.parse(String(d)));
    if (waiter) waiter();
  });
  const closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const opened = new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('error', reject);
  });
  async function next() {
    while (!messages.length) await new Promise((r) => (waiter = r));
    return messages.shift();
  }
  return { ws, opened, closed, next, send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)) };
}

async function acked() {
  const r = raw();
  await r.opened;
  r.send({ type: 'connection_init' });
  assert.deepEqual(await r.next(), { type: 'connection_ack' });
  return r;
}

(async () => {
  await check('a subscription streams its events, then completes', async () => {
    const c = client();
    assert.deepEqual(await collect(c, 'subscription { count }'), [
      { data: { count: 1 } },
      { data: { count: 2 } },
      { data: { count: 3 } },
    ]);
    await c.dispose();
  });

  await check('a query answers once, over the same socket as others', async () => {
    const c = client();
    const [a, b] = await Promise.all([collect(c, '{ hello }'), collect(c, '{ hello }')]);
    assert.deepEqual(a, [{ data: { hello: 'world' } }]);
    assert.deepEqual(b, a);
    await c.dispose();
  });

  await check('an error message reaches the subscriber as GraphQL errors', async () => {
    const c = client();
    await assert.rejects(collect(c, '{ fail }'), (errs) => {
      assert.deepEqual(errs, [{ message: 'boom' }]);
      return true;
    });
    await c.dispose();
  });

  await check('leaving an iteration early completes it on the server', async () => {
    const c = client();
    const before = (await collect(c, '{ cancels }'))[0].data.cancels;
    const it = c.iterate({ query: 'subscription { tick }' });
    let n = 0;
    for await (const v of it) {
      assert.equal(v.data.tick, ++n);
      if (n === 3) break;
    }
    await new Promise((r) => setTimeout(r, 100));
    const after = (await collect(c, '{ cancels }'))[0].data.cancels;
    assert.equal(after, before + 1);
    await c.dispose();
  });

  await check('a refused connection closes 4403 Forbidden', async () => {
    const c = client({ connectionParams: { token: 'bad' } });
    await assert.rejects(collect(c, '{ hello }'), (e) => {
      assert.equal(e.code, 4403);
      assert.equal(e.reason, 'Forbidden');
      return true;
    });
    await c.dispose();
  });

  await check('a deferred acknowledgement carries its payload', async () => {
    let ackPayload;
    const c = client({ connectionParams: { token: 'later' }, on: { connected: (s, p) => (ackPayload = p) } });
    assert.deepEqual(await collect(c, '{ hello }'), [{ data: { hello: 'world' } }]);
    assert.deepEqual(ackPayload, { later: true });
    await c.dispose();
  });

  await check('ping is answered with pong and its payload', async () => {
    const r = await acked();
    r.send({ type: 'ping', payload: { n: 1 } });
    assert.deepEqual(await r.next(), { type: 'pong', payload: { n: 1 } });
    r.ws.close(1000);
    assert.equal((await r.closed).code, 1000);
  });

  const closes = [
    ['subscribe before the ack: 4401', [{ id: '1', type: 'subscribe', payload: { query: '{ hello }' } }], 4401, 'Unauthorized'],
    ['not JSON: 4400', ['{nope'], 4400, 'Invalid message received'],
    ['an unknown type: 4400', [{ type: 'connection_init' }, { type: 'next', id: '1', payload: {} }], 4400, 'Invalid message received'],
    ['a second init: 4429', [{ type: 'connection_init' }, { type: 'connection_init' }], 4429, 'Too many initialisation requests'],
    [
      'a duplicate id in progress: 4409',
      [
        { type: 'connection_init' },
        { id: 'x', type: 'subscribe', payload: { query: 'subscription { tick }' } },
        { id: 'x', type: 'subscribe', payload: { query: 'subscription { tick }' } },
      ],
      4409,
      'Subscriber for x already exists',
    ],
    ['no init in time: 4408', [], 4408, 'Connection initialisation timeout'],
  ];
  for (const [name, msgs, code, reason] of closes) {
    await check(name, async () => {
      const r = raw();
      await r.opened;
      for (const m of msgs) r.send(m);
      const c = await r.closed;
      assert.equal(c.code, code);
      assert.equal(c.reason, reason);
    });
  }

  await check('no graphql-transport-ws subprotocol: 4406', async () => {
    const r = raw(null);
    await r.opened;
    const c = await r.closed;
    assert.equal(c.code, 4406);
  });

  await check('a message in fragments is joined', async () => {
    const r = raw();
    await r.opened;
    r.ws.send('{"type":"conn', { fin: false });
    r.ws.send('ection_init"}', { fin: true });
    assert.deepEqual(await r.next(), { type: 'connection_ack' });
    r.ws.close(1000);
    await r.closed;
  });

  await check('a message over the limit closes 1009', async () => {
    const r = await acked();
    r.send({ type: 'ping', payload: { big: 'x'.repeat(70000) } });
    assert.equal((await r.closed).code, 1009);
  });

  await check('the server answers WebSocket pings', async () => {
    const r = raw();
    await r.opened;
    const pong = new Promise((resolve) => r.ws.on('pong', (d) => resolve(String(d))));
    r.ws.ping('hi');
    assert.equal(await pong, 'hi');
    r.ws.close(1000);
    await r.closed;
  });

  console.log(failures ? `${failures} failed` : 'all passed');
  process.exit(failures ? 1 : 0);
})();
