// The npm graphql-ws 6 client (and raw `ws` 8 sockets) against a real
// gql_http server: examples/subscribe/server.c, whose C resolvers' event
// streams, queries and mutations go over graphql-transport-ws, and whose
// execute hook sees connection_init's payload and the upgrade's headers.
// Usage: node serve_ws_npm_client.cjs PORT SERVER_PID (NODE_PATH: graphql-ws, ws).
'use strict';
const assert = require('node:assert/strict');
const { createClient } = require('graphql-ws/client');
const WebSocket = require('ws');

const port = process.argv[2];
const url = `ws://127.0.0.1:${port}/graphql`;
let failures = 0;

async function check(name, fn) {
  const timer = new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), 6000).unref());
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

function collect(c, query, variables) {
  return new Promise((resolve, reject) => {
    const got = [];
    c.subscribe({ query, variables }, { next: (v) => got.push(v), error: reject, complete: () => resolve(got) });
  });
}

function raw(headers) {
  const ws = new WebSocket(url, ['graphql-transport-ws'], { headers });
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

(async () => {
  await check('a C resolver\'s stream: its events through the selection set, then complete', async () => {
    const c = client();
    assert.deepEqual(await collect(c, 'subscription { ticks(ms: 10, count: 3) { n label } }'), [
      { data: { ticks: { n: 1, label: 'odd' } } },
      { data: { ticks: { n: 2, label: 'even' } } },
      { data: { ticks: { n: 3, label: 'odd' } } },
    ]);
    await c.dispose();
  });

  await check('queries and mutations over the same socket', async () => {
    const c = client();
    const [q, m1] = await Promise.all([collect(c, '{ hello }'), collect(c, 'mutation { bump }')]);
    assert.deepEqual(q, [{ data: { hello: 'world' } }]);
    const m2 = await collect(c, 'mutation { bump }');
    assert.equal(m2[0].data.bump, m1[0].data.bump + 1);
    await c.dispose();
  });

  await check('variables reach the subscription\'s arguments', async () => {
    const c = client();
    const got = await collect(c, 'subscription ($k: Int) { ticks(ms: 5, count: $k) { n } }', { k: 2 });
    assert.deepEqual(got, [{ data: { ticks: { n: 1 } } }, { data: { ticks: { n: 2 } } }]);
    await c.dispose();
  });

  await check('a document that does not validate is an error message', async () => {
    const c = client();
    await assert.rejects(collect(c, 'subscription { ticks { nope } }'), (errs) => {
      assert.ok(Array.isArray(errs));
      assert.match(errs[0].message, /Cannot query field "nope" on type "Tick"/);
      return true;
    });
    await c.dispose();
  });

  await check('a resolver error at subscribe is a result, then complete', async () => {
    const c = client();
    const got = await collect(c, 'subscription { ticks(ms: 0) { n } }');
    assert.equal(got.length, 1);
    assert.match(got[0].errors[0].message, /ms must be/);
    await c.dispose();
  });

  await check('a source that fails ends the subscription with its error', async () => {
    const c = client();
    await assert.rejects(collect(c, 'subscription { broken { n } }'), (errs) => {
      assert.equal(errs[0].message, 'The source broke.');
      return true;
    });
    await c.dispose();
  });

  await check('connection_init payload reaches the execute hook and the context', async () => {
    const c = client({ connectionParams: { authorization: 'Bearer ann' } });
    assert.deepEqual(await collect(c, '{ whoami }'), [{ data: { whoami: 'ann' } }]);
    assert.deepEqual(await collect(c, 'subscription { ticks(ms: 5, count: 2) { n by } }'), [
      { data: { ticks: { n: 1, by: 'ann' } } },
      { data: { ticks: { n: 2, by: 'ann' } } },
    ]);
    await c.dispose();
  });

  await check('the upgrade request\'s headers reach the hook too', async () => {
    class Authed extends WebSocket {
      constructor(u, p) {
        super(u, p, { headers: { Authorization: 'Bearer bob' } });
      }
    }
    const c = client({ webSocketImpl: Authed });
    assert.deepEqual(await collect(c, '{ whoami }'), [{ data: { whoami: 'bob' } }]);
    await c.dispose();
  });

  await check('a connection the hook refuses closes 4403 Forbidden', async () => {
    const c = client({ connectionParams: { Authorization: 'bad' } });
    await assert.rejects(collect(c, '{ hello }'), (e) => {
      assert.equal(e.code, 4403);
      assert.equal(e.reason, 'Forbidden');
      return true;
    });
    await c.dispose();
  });

  await check('leaving early stops the stream; the socket goes on', async () => {
    const c = client();
    let n = 0;
    for await (const v of c.iterate({ query: 'subscription { ticks(ms: 5) { n } }' })) {
      assert.equal(v.data.ticks.n, ++n);
      if (n === 3) break;
    }
    assert.deepEqual(await collect(c, '{ hello }'), [{ data: { hello: 'world' } }]);
    await c.dispose();
  });

  const closes = [
    ['subscribe before the ack: 4401', [{ id: '1', type: 'subscribe', payload: { query: '{ hello }' } }], 4401, 'Unauthorized'],
    ['not JSON: 4400', ['{nope'], 4400, 'Invalid message received'],
    [
      'a duplicate id in progress: 4409',
      [
        { type: 'connection_init' },
        { id: 'x', type: 'subscribe', payload: { query: 'subscription { ticks { n } }' } },
        { id: 'x', type: 'subscribe', payload: { query: 'subscription { ticks { n } }' } },
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

  await check('plain GraphQL over HTTP on the same path and port', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ hello }' }),
    });
    assert.deepEqual(await res.json(), { data: { hello: 'world' } });
  });

  await check('a stopping server closes open sockets with 1001', async () => {
    const r = raw();
    await r.opened;
    r.send({ type: 'connection_init' });
    assert.deepEqual(await r.next(), { type: 'connection_ack' });
    r.send({ id: 's', type: 'subscribe', payload: { query: 'subscription { ticks(ms: 50) { n } }' } });
    assert.equal((await r.next()).type, 'next');
    process.kill(Number(process.argv[3]), 'SIGTERM');
    const c = await r.closed;
    assert.equal(c.code, 1001);
  });

  console.log(failures ? `${failures} failed` : 'all passed');
  process.exit(failures ? 1 : 0);
})();
