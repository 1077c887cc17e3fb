// The npm graphql-sse 2 client (and plain fetch for what the client never
// sends) against sse_peer_server: gql's graphql-sse routing, reservations
// and event stream as the real client reads them, in both modes.
// Usage: node sse_npm_client.cjs PORT (NODE_PATH: graphql-sse).
'use strict';
const assert = require('node:assert/strict');
const { createClient } = require('graphql-sse');

const url = `http://127.0.0.1:${process.argv[2]}/graphql`;
let failures = 0;

async function check(name, fn) {
  const timer = new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), 5000).unref());
  try {
    await Promise.race([fn(), timer]);
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : JSON.stringify(e)}`);
  }
}

function collect(c, query) {
  return new Promise((resolve, reject) => {
    const got = [];
    c.subscribe({ query }, { next: (v) => got.push(v), error: reject, complete: () => resolve(got) });
  });
}

const counted = [{ data: { count: 1 } }, { data: { count: 2 } }, { data: { count: 3 } }];

async function errorOf(res) {
  const text = await res.text();
  return text ? JSON.parse(text).errors[0].message : '';
}

(async () => {
  for (const singleConnection of [false, true]) {
    const mode = singleConnection ? 'single connection' : 'distinct connections';
    await check(`${mode}: a subscription streams its events, then completes`, async () => {
      const c = createClient({ url, singleConnection, retryAttempts: 0 });
      assert.deepEqual(await collect(c, 'subscription { count }'), counted);
      c.dispose();
    });
    await check(`${mode}: queries and subscriptions side by side`, async () => {
      const c = createClient({ url, singleConnection, retryAttempts: 0 });
      const [a, b] = await Promise.all([collect(c, '{ hello }'), collect(c, 'subscription { count }')]);
      assert.equal(a.length, 1);
      assert.equal(a[0].data.hello, 'world');
      assert.deepEqual(b, counted);
      c.dispose();
    });
  }

  await check('single connection: leaving early sends DELETE and stops it', async () => {
    const c = createClient({ url, singleConnection: true, retryAttempts: 0 });
    const before = (await collect(c, '{ stops }'))[0].data.stops;
    let n = 0;
    for await (const v of c.iterate({ query: 'subscription { tick }' })) {
      assert.equal(v.data.tick, ++n);
      if (n === 2) break;
    }
    await new Promise((r) => setTimeout(r, 100));
    const after = (await collect(c, '{ stops }'))[0].data.stops;
    assert.equal(after, before + 1);
    c.dispose();
  });

  await check('reservations: graphql-sse statuses and messages', async () => {
    const put = await fetch(url, { method: 'PUT' });
    assert.equal(put.status, 201);
    const token = await put.text();
    assert.match(token, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const h = { 'x-graphql-event-stream-token': token };
    let r = await fetch(url, { method: 'PUT', headers: h });
    assert.equal(r.status, 409);
    assert.equal(await errorOf(r), 'Stream already registered');
    r = await fetch(url, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: '{"query":"{ hello }"}' });
    assert.equal(r.status, 400);
    assert.equal(await errorOf(r), 'Operation ID is missing');
    r = await fetch(url, { method: 'DELETE', headers: h });
    assert.equal(r.status, 400);
    assert.equal(await errorOf(r), 'Operation ID is missing');
    const ctrl = new AbortController();
    const stream = await fetch(url, { headers: { ...h, accept: 'text/event-stream' }, signal: ctrl.signal });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type'), /^text\/event-stream/);
    r = await fetch(url, { headers: { ...h, accept: 'text/event-stream' } });
    assert.equal(r.status, 409);
    assert.equal(await errorOf(r), 'Stream already open');
    r = await fetch(url, {
      method: 'POST',
      headers: { ...h, 'content-type': 'application/json' },
      body: '{"query":"{ hello }","extensions":{"operationId":"a"}}',
    });
    assert.equal(r.status, 202);
    ctrl.abort();
    await new Promise((res) => setTimeout(res, 100));
    r = await fetch(url, {
      method: 'POST',
      headers: { ...h, 'content-type': 'application/json' },
      body: '{"query":"{ hello }","extensions":{"operationId":"b"}}',
    });
    assert.equal(r.status, 404, 'the reservation went with its stream');
    assert.equal(await errorOf(r), 'Stream not found');
    r = await fetch(url, { method: 'PATCH', headers: h });
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'GET, POST, PUT, DELETE');
  });

  console.log(failures ? `${failures} failed` : 'all passed');
  process.exit(failures ? 1 : 0);
})();
