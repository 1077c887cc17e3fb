// The npm graphql-ws 6 client through gql gateway (test_subscriptions_gateway.sh):
// subscriptions relayed from the products subgraph with prices resolved per
// event, the subgraph's subscription completed when the client completes or
// leaves, queries and mutations over the socket, the subgraph dying.
// Usage: node gateway_subs_client.cjs GATEWAY_PORT REDIS_PORT PRODUCTS_PID PRICES_PID
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const { createClient } = require('graphql-ws/client');
const WebSocket = require('ws');

const [port, rport, productsPid, pricesPid] = process.argv.slice(2);
const url = `ws://127.0.0.1:${port}/graphql`;
let failures = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function check(name, fn) {
  const timer = new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), 15000).unref());
  try {
    await Promise.race([fn(), timer]);
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : JSON.stringify(e)}`);
  }
}

function client() {
  return createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
}

function publish(channel, value) {
  return Number(execFileSync('redis-cli', ['-p', rport, 'PUBLISH', channel, JSON.stringify(value)]).toString().trim());
}

// A subscription whose results queue up for next(); ended tells how it ended.
function subscribe(c, query, variables) {
  const got = [];
  let waiter = null;
  let ended = null;
  const wake = () => waiter && waiter();
  const dispose = c.subscribe({ query, variables }, {
    next: (v) => { got.push(v); wake(); },
    error: (e) => { ended = { error: e }; wake(); },
    complete: () => { ended = ended || { complete: true }; wake(); },
  });
  return {
    dispose,
    async next() {
      while (!got.length) {
        if (ended) throw new Error(`ended instead: ${JSON.stringify(ended)}`);
        await new Promise((r) => (waiter = r));
      }
      return got.shift();
    },
    drain() {
      return got.splice(0);
    },
    async end() {
      while (!ended) await new Promise((r) => (waiter = r));
      return { ended, rest: got.splice(0) };
    },
  };
}

const addedQuery = 'subscription { productAdded { upc name price } }';

(async () => {
  let c = client();

  // Subscribes and publishes `value` every 50 ms until its first event comes
  // back (Redis delivers at most once: what is published before the
  // subgraph's subscription is open is lost); the repeats that followed it
  // are drained. The products subgraph allows one open subscription: while
  // another is still open upstream, the gateway relays its refusal, and
  // this tries again.
  async function nextAccepted(query, variables, channel, value) {
    for (let i = 0; i < 40; i++) {
      const s = subscribe(c, query, variables);
      let first = null;
      let failed = null;
      const p = s.next().then((v) => (first = v), (e) => (failed = e));
      for (let k = 0; k < 60 && !first && !failed; k++) {
        publish(channel, value);
        await Promise.race([p, sleep(50)]);
      }
      if (first && first.data) {
        await sleep(200);
        s.drain();
        return { s, first, tries: i };
      }
      s.dispose();
      await sleep(50);
    }
    throw new Error('the products subgraph never accepted the subscription');
  }

  await check('each event arrives with the price from the other subgraph', async () => {
    const { s, first } = await nextAccepted(addedQuery, undefined, 'gql:productAdded', { upc: '1', name: 'Table' });
    assert.deepEqual(first, { data: { productAdded: { upc: '1', name: 'Table', price: 100 } } });
    publish('gql:productAdded', { upc: '2', name: 'Couch' });
    publish('gql:productAdded', { upc: '3', name: 'Lamp' });
    assert.deepEqual(await s.next(), { data: { productAdded: { upc: '2', name: 'Couch', price: 250 } } });
    assert.deepEqual(await s.next(), { data: { productAdded: { upc: '3', name: 'Lamp', price: 7 } } });
    // an entity the prices subgraph does not know: null price, the event stands
    publish('gql:productAdded', { upc: '9', name: 'Ghost' });
    const r = await s.next();
    assert.deepEqual(r.data, { productAdded: { upc: '9', name: 'Ghost', price: null } });
    s.dispose();
  });

  await check('completing the client completes the subgraph subscription', async () => {
    const { s, first } = await nextAccepted(addedQuery, undefined, 'gql:productAdded', { upc: '2', name: 'Couch' });
    assert.deepEqual(first, { data: { productAdded: { upc: '2', name: 'Couch', price: 250 } } });
    s.dispose(); // graphql-ws: `complete` to the gateway
    // the gateway completes upstream: products accepts a new one
    const again = await nextAccepted('subscription ($m: String) { productsOf(maker: $m) { name price } }',
      { m: 'acme' }, 'gql:productsOf', { maker: 'acme', upc: '1', name: 'Table' });
    assert.deepEqual(again.first, { data: { productsOf: { name: 'Table', price: 100 } } });
    // the argument filter of the subgraph applies through the gateway
    publish('gql:productsOf', { maker: 'other', upc: '2', name: 'Couch' });
    publish('gql:productsOf', { maker: 'acme', upc: '3', name: 'Lamp' });
    assert.deepEqual(await again.s.next(), { data: { productsOf: { name: 'Lamp', price: 7 } } });
    again.s.dispose();
  });

  await check('the client leaving (socket closed) completes the subgraph subscription', async () => {
    const { s } = await nextAccepted(addedQuery, undefined, 'gql:productAdded', { upc: '1', name: 'Table' });
    void s;
    await c.dispose(); // closes the socket, no `complete`
    c = client();
    const again = await nextAccepted(addedQuery, undefined, 'gql:productAdded', { upc: '1', name: 'Table' });
    assert.deepEqual(again.first, { data: { productAdded: { upc: '1', name: 'Table', price: 100 } } });
    again.s.dispose();
  });

  await check('a subscription refused by the subgraph ends with its error', async () => {
    const { s } = await nextAccepted(addedQuery, undefined, 'gql:productAdded', { upc: '1', name: 'Table' });
    // a second one while the first is open: products refuses it
    const c2 = client();
    const t = subscribe(c2, addedQuery);
    const { ended, rest } = await t.end();
    assert.ok(ended.complete, JSON.stringify(ended));
    assert.equal(rest.length, 1, JSON.stringify(rest));
    assert.match(rest[0].errors[0].message, /Too many subscriptions/);
    s.dispose();
    await c2.dispose();
  });

  await check('queries and mutations over the gateway socket', async () => {
    const q = subscribe(c, '{ topProducts { name price } }');
    assert.deepEqual(await q.next(), { data: { topProducts: [{ name: 'Table', price: 100 }, { name: 'Couch', price: 250 }] } });
    assert.ok((await q.end()).ended.complete);
    const m = subscribe(c, 'mutation { ping }');
    assert.deepEqual(await m.next(), { data: { ping: 'pong' } });
    assert.ok((await m.end()).ended.complete);
    // an operation that does not validate: the protocol's error message
    const bad = subscribe(c, '{ nope }');
    const { ended } = await bad.end();
    assert.ok(ended.error, JSON.stringify(ended));
  });

  await check('an event whose other subgraph is down still arrives, with its error', async () => {
    const { s } = await nextAccepted(addedQuery, undefined, 'gql:productAdded', { upc: '1', name: 'Table' });
    process.kill(Number(pricesPid), 'SIGKILL');
    await sleep(200);
    publish('gql:productAdded', { upc: '2', name: 'Couch' });
    const r = await s.next();
    assert.deepEqual(r.data, { productAdded: { upc: '2', name: 'Couch', price: null } });
    assert.match(r.errors[0].message, /prices/);
    // the subscription goes on
    publish('gql:productAdded', { upc: '3', name: 'Lamp' });
    assert.deepEqual((await s.next()).data, { productAdded: { upc: '3', name: 'Lamp', price: null } });
    s.dispose();
  });

  await check('the subgraph dying ends the subscription with an error', async () => {
    const { s } = await nextAccepted(addedQuery, undefined, 'gql:productAdded', { upc: '1', name: 'Table' });
    process.kill(Number(productsPid), 'SIGKILL');
    const { ended, rest } = await s.end();
    assert.ok(ended.complete, JSON.stringify(ended));
    assert.equal(rest.length, 1, JSON.stringify(rest));
    assert.match(rest[0].errors[0].message, /subgraph products/);
    assert.equal(rest[0].data, undefined);
    // a new subscription: the subgraph is down, an error, not a hang
    const t = subscribe(c, addedQuery);
    const r = await t.end();
    assert.match(r.rest[0].errors[0].message, /products.*connect/);
  });

  await c.dispose();
  process.exit(failures ? 1 : 0);
})();
