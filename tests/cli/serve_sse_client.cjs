// The npm graphql-sse 2 client (distinct connections mode) against
// `gql serve --redis` (test_serve_sse.sh): a subscription receives the
// events published with redis-cli, a query and a @defer query arrive as
// event streams, a client leaving frees its subscription (the server's one
// allowed subscription is free again), a gql without --redis answers the error as a `next`.
// Usage: node serve_sse_client.cjs PORT PORT_NONE REDIS_PORT
//        (NODE_PATH: graphql-sse).
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const { createClient } = require('graphql-sse');

const [port, portNone, redisPort] = process.argv.slice(2);
let failures = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function check(name, ms, fn) {
  const timer = new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), ms).unref());
  try {
    await Promise.race([fn(), timer]);
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : JSON.stringify(e)}`);
  }
}

const redis = (...args) => execFileSync('redis-cli', ['-p', redisPort, ...args]).toString().trim();
const publish = (channel, value) => redis('PUBLISH', channel, JSON.stringify(value));
const numsub = (channel) => Number(redis('PUBSUB', 'NUMSUB', channel).split('\n')[1]);
async function until(pred, what) {
  for (let i = 0; i < 400; i++) {
    if (pred()) return;
    await sleep(25);
  }
  throw new Error(`never: ${what}`);
}

const client = (p) => createClient({ url: `http://127.0.0.1:${p}/graphql`, singleConnection: false,
  retryAttempts: 0 });

function collect(c, query) {
  return new Promise((resolve, reject) => {
    const got = [];
    c.subscribe({ query }, { next: (v) => got.push(v), error: reject, complete: () => resolve(got) });
  });
}

(async () => {
  await check('a query is one `next`, then `complete`', 5000, async () => {
    const c = client(port);
    assert.deepEqual(await collect(c, '{ ok }'), [{ data: { ok: true } }]);
    c.dispose();
  });

  await check('a @defer query: each payload a `next`', 5000, async () => {
    const c = client(port);
    const got = await collect(c, '{ ok ... @defer { ok2: ok } }');
    assert.equal(got.length, 2);
    assert.deepEqual(got[0], { data: { ok: true }, pending: [{ id: '0', path: [] }], hasNext: true });
    assert.deepEqual(got[1], { hasNext: false, incremental: [{ id: '0', data: { ok2: true } }],
      completed: [{ id: '0' }] });
    c.dispose();
  });

  await check('a subscription receives the events published to Redis', 15000, async () => {
    const c = client(port);
    const got = [];
    let resolve;
    const two = new Promise((r) => { resolve = r; });
    c.subscribe({ query: 'subscription { messages(room: "a") { room text } }' }, {
      next: (v) => { got.push(v); if (got.length === 2) resolve(); },
      error: (e) => { throw e; },
      complete: () => {},
    });
    await until(() => numsub('gql:messages') >= 1, 'the server subscribed to gql:messages');
    await sleep(100); /* the subscription registered on the worker */
    publish('gql:messages', { room: 'b', text: 'not for a' });
    publish('gql:messages', { room: 'a', text: 'one' });
    publish('gql:messages', { room: 'a', text: 'two' });
    await two;
    assert.deepEqual(got, [{ data: { messages: { room: 'a', text: 'one' } } },
      { data: { messages: { room: 'a', text: 'two' } } }]);
    c.dispose(); /* leaves: the server frees the subscription (next check) */
  });

  // The first event of a new subscription: published until it comes (an
  // event before the subscription registered reaches nobody).
  async function firstEvent(it, value) {
    const first = it.next();
    let done = false;
    first.finally(() => { done = true; });
    while (!done) {
      publish('gql:messages', value);
      await sleep(50);
    }
    return (await first).value;
  }
  // A subscription once the server's one allowed is free again (the last
  // client's leaving is seen asynchronously: retried for 2 s, no more).
  async function subscribeWhenFree(c) {
    for (let i = 0; i < 40; i++) {
      const it = c.iterate({ query: 'subscription { messages { text } }' });
      const v = await firstEvent(it, { text: 'hello' });
      if (!v.errors) return it;
      assert.match(v.errors[0].message, /Too many subscriptions/);
      await sleep(50);
    }
    throw new Error('the subscription was never freed');
  }

  await check('a client leaving frees its subscription (one allowed, three rounds)', 20000, async () => {
    for (let round = 0; round < 3; round++) {
      const c = client(port);
      const it = await subscribeWhenFree(c);
      await it.return();
      c.dispose();
    }
  });

  await check('a second subscription beyond the limit gets the error as a `next`', 15000, async () => {
    const c = client(port);
    const it = await subscribeWhenFree(c);
    const d = client(port);
    const got = await collect(d, 'subscription { messages { text } }');
    assert.equal(got.length, 1);
    assert.match(got[0].errors[0].message, /Too many subscriptions/);
    assert.deepEqual(await firstEvent(it, { text: 'still here' }), { data: { messages: { text: 'still here' } } });
    await it.return();
    c.dispose();
    d.dispose();
  });

  await check('without --redis: the error as a `next`, then `complete`', 5000, async () => {
    const c = client(portNone);
    const got = await collect(c, 'subscription { messages { text } }');
    assert.equal(got.length, 1);
    assert.ok(got[0].errors && got[0].errors.length === 1, JSON.stringify(got));
    c.dispose();
  });

  console.log(failures ? `${failures} failed` : 'all passed');
  process.exit(failures ? 1 : 0);
})();
