// The npm graphql-ws 6 and graphql-sse 2 clients through gql gateway, whose
// products subgraph is reached over graphql-sse (test_subscriptions_gateway_sse.sh):
// events with the price of the other subgraph, proof that products served
// the subscription over SSE, the client's complete ending the subgraph's
// stream, products dying ending the subscriptions with the gateway's error.
// PHASE: "sse" (products over SSE), "reload-ws" / "reload-sse" (after a
// reload that set products' protocol: new subscriptions go over it), "dying".
// Usage: node gateway_subs_sse_client.cjs PHASE GATEWAY_PORT REDIS_PORT PRODUCTS_PORT PRODUCTS_PID
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const ws = require('graphql-ws/client');
const sse = require('graphql-sse');
const WebSocket = require('ws');

const [phase, port, rport, productsPort, productsPid] = process.argv.slice(2);
let failures = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const channel = 'gql:productAdded';
const query = 'subscription { productAdded { upc name price } }';

async function check(name, fn) {
  const timer = new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), 20000).unref());
  try {
    await Promise.race([fn(), timer]);
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : JSON.stringify(e)}`);
  }
}

function wsClient() {
  return ws.createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
}

function sseClient() {
  return sse.createClient({ url: `http://127.0.0.1:${port}/graphql`, singleConnection: false, retryAttempts: 0 });
}

function redis(...args) {
  return execFileSync('redis-cli', ['-p', rport, ...args]).toString().trim();
}
const publish = (value) => Number(redis('PUBLISH', channel, JSON.stringify(value)));

async function waitFor(what, cond) {
  for (let i = 0; i < 100; i++) {
    if (await cond()) return;
    await sleep(50);
  }
  throw new Error(`never: ${what}`);
}

// products' Prometheus metrics: a sample's value (0 when absent).
async function metric(re) {
  const text = await (await fetch(`http://127.0.0.1:${productsPort}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (re.test(line)) sum += Number(line.split(' ').pop());
  return sum;
}
const wsConnections = () => metric(/^gql_websocket_connections /);
const httpSubscriptions = () => metric(/^gql_http_requests_total\{.*operation_type="subscription"/);
// products' open connections: the gateway's SSE stream is one (Redis keeps
// the channel subscribed after the last subscriber, so NUMSUB cannot tell)
const connections = () => metric(/^gql_http_connections /);

// A subscription (both clients have subscribe(payload, sink) -> dispose)
// whose results queue up for next(); end() waits for its end.
function subscribe(c) {
  const got = [];
  let waiter = null;
  let ended = null;
  const wake = () => waiter && waiter();
  const dispose = c.subscribe({ query }, {
    next: (v) => { got.push(v); wake(); },
    error: (e) => { ended = { error: String(e && e.message ? e.message : JSON.stringify(e)) }; wake(); },
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

// Subscribes, then publishes `value` every 50 ms until the first event is
// back (what is published before the subgraph's stream is open is lost);
// the repeats are drained.
async function opened(c, value) {
  const s = subscribe(c);
  let first = null;
  let failed = null;
  const p = s.next().then((v) => (first = v), (e) => (failed = e));
  for (let k = 0; k < 100 && !first && !failed; k++) {
    publish(value);
    await Promise.race([p, sleep(50)]);
  }
  if (failed) throw failed;
  if (!first) throw new Error('no first event');
  await sleep(200);
  s.drain();
  return { s, first };
}

(async () => {
  if (phase === 'sse') await sseChecks();
  else if (phase.startsWith('reload-')) await reloadChecks(phase === 'reload-ws' ? 1 : 0);
  else if (phase === 'ends') await endChecks();
  else await dyingChecks();
  process.exit(failures ? 1 : 0);
})();

// Through the gateway over sse_subgraph.py: the x-mode header (a header
// rule propagates it) picks how the subgraph's stream ends.
async function endChecks() {
  const run = async (mode) => {
    const c = sse.createClient({
      url: `http://127.0.0.1:${port}/graphql`, singleConnection: false, retryAttempts: 0,
      headers: { 'x-mode': mode },
    });
    const got = [];
    const ended = await new Promise((resolve) => {
      c.subscribe({ query: 'subscription { ticks { n seen } }' }, {
        next: (v) => got.push(v),
        error: (e) => resolve({ error: String(e && e.message ? e.message : JSON.stringify(e)) }),
        complete: () => resolve({ complete: true }),
      });
    });
    c.dispose();
    assert.ok(ended.complete, `${mode}: ${JSON.stringify(ended)}`);
    return got;
  };
  const tick = (n) => ({ data: { ticks: { n, seen: 'text/event-stream|gateway' } } });
  await check('the subgraph\'s complete event completes the client\'s subscription', async () => {
    assert.deepEqual(await run('complete'), [tick(1), tick(2)]);
  });
  await check('the end of the subgraph\'s stream completes it too', async () => {
    assert.deepEqual(await run('end'), [tick(1), tick(2)]);
  });
  const failed = (got, n, re) => {
    assert.equal(got.length, n + 1, JSON.stringify(got));
    for (let i = 0; i < n; i++) assert.deepEqual(got[i], tick(i + 1));
    const e = got[n].errors[0];
    assert.match(e.message, re);
    assert.equal(e.extensions.code, 'SUBREQUEST_HTTP_ERROR');
    assert.equal(e.extensions.service, 'fake');
  };
  await check('a stream cut mid-way ends it with the error', async () => {
    failed(await run('cut'), 1, /^Subscription from subgraph fake ended: the subgraph closed the connection before the stream's end$/);
  });
  await check('an error status ends it with the subgraph\'s message', async () => {
    failed(await run('status'), 0, /^Subscription from subgraph fake ended: the subgraph answered HTTP 503: overloaded$/);
  });
  await check('a JSON answer instead of the event stream ends it with the error', async () => {
    failed(await run('json'), 0, /ended: the subgraph answered with Content-Type application\/json, not text\/event-stream$/);
  });
}

async function reloadChecks(want) {
  await check(`after the reload, products is reached over ${want ? 'WebSocket' : 'SSE'}`, async () => {
    const c = wsClient();
    let ws = -1;
    for (let i = 0; i < 50 && ws !== want; i++) {
      const { s, first } = await opened(c, { upc: '1', name: 'Table' });
      assert.deepEqual(first, { data: { productAdded: { upc: '1', name: 'Table', price: 100 } } });
      ws = await wsConnections();
      s.dispose();
      if (ws !== want) await sleep(100); // the reload is not applied yet
    }
    assert.equal(ws, want, 'WebSocket connections to products after the reload');
    await c.dispose();
  });
}

async function sseChecks() {
  await check('graphql-ws client, SSE subgraph: events with the other subgraph\'s price', async () => {
    const c = wsClient();
    const before = await httpSubscriptions();
    const { s, first } = await opened(c, { upc: '1', name: 'Table' });
    assert.deepEqual(first, { data: { productAdded: { upc: '1', name: 'Table', price: 100 } } });
    // products serves it over SSE: no WebSocket, and once it ends an HTTP
    // request of a subscription is counted
    assert.equal(await wsConnections(), 0, 'products has a WebSocket connection: not SSE');
    const open = await connections();
    publish({ upc: '2', name: 'Couch' });
    publish({ upc: '3', name: 'Lamp' });
    assert.deepEqual(await s.next(), { data: { productAdded: { upc: '2', name: 'Couch', price: 250 } } });
    assert.deepEqual(await s.next(), { data: { productAdded: { upc: '3', name: 'Lamp', price: 7 } } });
    // the client's complete ends the subgraph's stream: the gateway closes
    // its connection to products
    s.dispose();
    await waitFor('the SSE connection to products closed', async () => (await connections()) < open);
    await waitFor('products counted an HTTP subscription request',
      async () => (await httpSubscriptions()) === before + 1);
    await c.dispose();
  });

  await check('graphql-sse client (distinct connections) through the gateway', async () => {
    const c = sseClient();
    const before = await httpSubscriptions();
    const { s, first } = await opened(c, { upc: '2', name: 'Couch' });
    const open = await connections();
    assert.deepEqual(first, { data: { productAdded: { upc: '2', name: 'Couch', price: 250 } } });
    publish({ upc: '1', name: 'Table' });
    assert.deepEqual(await s.next(), { data: { productAdded: { upc: '1', name: 'Table', price: 100 } } });
    s.dispose(); // aborts the client's request
    await waitFor('the SSE connection to products closed', async () => (await connections()) < open);
    await waitFor('products counted an HTTP subscription request',
      async () => (await httpSubscriptions()) === before + 1);
    c.dispose();
  });

}

async function dyingChecks() {
  await check('products dying ends both clients\' subscriptions with the gateway\'s error', async () => {
    const cw = wsClient();
    const cs = sseClient();
    const a = await opened(cw, { upc: '1', name: 'Table' });
    const b = await opened(cs, { upc: '1', name: 'Table' });
    b.s.drain(); // b's first events reached a too
    a.s.drain();
    process.kill(Number(productsPid), 'SIGKILL'); // the streams are cut
    for (const s of [a.s, b.s]) {
      const { ended, rest } = await s.end();
      assert.ok(ended.complete, JSON.stringify(ended));
      const last = rest.pop();
      assert.ok(last && rest.every((r) => r.data && !r.errors), JSON.stringify([...rest, last]));
      const e = last.errors[0];
      assert.match(e.message, /^Subscription from subgraph products ended: /);
      assert.equal(e.extensions.code, 'SUBREQUEST_HTTP_ERROR');
      assert.equal(e.extensions.service, 'products');
      assert.equal(last.data, undefined);
    }
    // a new subscription: products is down, an error, not a hang
    for (const c of [cw, cs]) {
      const { ended, rest } = await subscribe(c).end();
      assert.ok(ended.complete, JSON.stringify(ended));
      assert.match(rest[0].errors[0].message, /subgraph products ended: cannot connect/);
    }
    await cw.dispose();
    cs.dispose();
  });
}
