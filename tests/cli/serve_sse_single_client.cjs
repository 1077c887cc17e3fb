// The npm graphql-sse 2 client in single connection mode (singleConnection:
// true) against `gql serve --threads 2 --redis` or `gql gateway`
// (test_serve_sse_single.sh): one reservation (PUT), one event stream
// (GET), every operation a POST whose events come over that stream.
// Two subscriptions receive the events published with redis-cli; one is
// disposed (DELETE) and stops receiving while the other goes on; a query
// works over the same stream. The client's fetch is wrapped to count the
// requests it makes and their statuses.
// Usage: node serve_sse_single_client.cjs PORT REDIS_PORT CHANNEL MODE LOG
//        (NODE_PATH: graphql-sse). MODE: serve (messages(room:), by
//        room) or gateway (productAdded: every event); LOG: the server's
//        stderr at --log-level debug, where a stopped operation shows.
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const { createClient } = require('graphql-sse');

const [port, redisPort, channel, mode, serverLog] = process.argv.slice(2);
const fs = require('node:fs');
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

const publish = (value) =>
  execFileSync('redis-cli', ['-p', redisPort, 'PUBLISH', channel, JSON.stringify(value)]);
async function until(pred, what) {
  for (let i = 0; i < 400; i++) {
    if (pred()) return;
    await sleep(25);
  }
  throw new Error(`never: ${what}`);
}

// every request of the client, with its answer's status
const seen = [];
const fetchFn = async (url, init) => {
  const res = await fetch(url, init);
  const accept = (init.headers && (init.headers.accept || init.headers.Accept)) || '';
  const stream = accept.includes('text/event-stream');
  const body = !stream && res.status !== 202 ? await res.clone().text() : '';
  seen.push({ method: init.method, url: String(url), status: res.status, stream, body });
  return res;
};
const count = (pred) => seen.filter(pred).length;

(async () => {
  const client = createClient({ url: `http://127.0.0.1:${port}/graphql`, singleConnection: true,
    retryAttempts: 0, fetchFn });

  const subscription = (label) => mode === 'gateway'
    ? 'subscription { productAdded { name price } }'
    : `subscription { messages(room: "${label}") { room text } }`;
  const event = (label, text) => mode === 'gateway'
    ? { upc: '1', name: text }
    : { room: label, text };
  const expected = (label, text) => mode === 'gateway'
    ? { data: { productAdded: { name: text, price: 100 } } }
    : { data: { messages: { room: label, text } } };

  const got = { a: [], b: [] };
  const ends = {};
  const dispose = {};
  for (const label of ['a', 'b']) {
    ends[label] = new Promise((resolve, reject) => {
      dispose[label] = client.subscribe({ query: subscription(label) }, {
        next: (v) => got[label].push(v),
        error: reject,
        complete: resolve,
      });
    });
  }

  await check('two subscriptions share one reservation and one stream', 10000, async () => {
    await until(() => count((s) => s.method === 'POST' && s.status === 202) >= 2,
      'both operations accepted (202)');
    assert.equal(count((s) => s.method === 'PUT' && s.status === 201), 1, 'one reservation');
    assert.equal(count((s) => s.stream && s.status === 200), 1, 'one stream');
  });

  // what each label's subscription gets of a text: gql serve filters by
  // room, the gateway's subscription gets every event
  const texts = (label, sent) => mode === 'gateway' ? sent.map((t) => t.text)
    : sent.filter((t) => t.label === label).map((t) => t.text);
  const send = (sent) => {
    for (const t of sent) publish(event(t.label, t.text));
  };

  await check('both subscriptions receive the events published', 20000, async () => {
    // the subscriptions reach Redis (through the subgraph, for the
    // gateway) after the 202: publish until both are live
    for (let i = 0; !(got.a.length && got.b.length); i++) {
      if (i > 200) throw new Error('no event came');
      send([{ label: 'a', text: 'warm' }, { label: 'b', text: 'warm' }]);
      await sleep(50);
    }
    await sleep(200);
    got.a.length = got.b.length = 0;
    const sent = [{ label: 'a', text: 'a1' }, { label: 'b', text: 'b1' },
      { label: 'a', text: 'a2' }, { label: 'b', text: 'b2' }];
    send(sent);
    for (const label of ['a', 'b']) {
      const want = texts(label, sent);
      await until(() => got[label].length >= want.length, `${want.length} events for ${label}`);
    }
    await sleep(100);
    for (const label of ['a', 'b'])
      assert.deepEqual(got[label], texts(label, sent).map((t) => expected(label, t)));
  });

  await check('a disposed subscription (DELETE) stops; the other goes on', 15000, async () => {
    dispose.a();
    await until(() => count((s) => s.method === 'DELETE' && s.status === 200) === 1,
      'the DELETE answered 200');
    const del = seen.find((s) => s.method === 'DELETE');
    assert.match(del.url, /\?operationId=/);
    await sleep(100);
    const before = { a: got.a.length, b: got.b.length };
    send([{ label: 'a', text: 'late' }, { label: 'b', text: 'late' }]);
    await until(() => got.b.length >= before.b + texts('b', [{ label: 'a', text: 'late' },
      { label: 'b', text: 'late' }]).length, 'b got its event');
    await sleep(200);
    assert.equal(got.a.length, before.a, 'a got nothing after its DELETE');
    // the server stopped it (the client alone would only stop listening)
    const id = new URL(del.url).searchParams.get('operationId');
    await until(() => new RegExp(`operation ${id} ended on worker \\d+ \\(stopped\\)`)
      .test(fs.readFileSync(serverLog, 'utf8')), `the server's log: operation ${id} stopped`);
    assert.deepEqual(got.b[got.b.length - 1], expected('b', 'late'));
  });

  await check('a query goes over the same stream', 10000, async () => {
    const result = await new Promise((resolve, reject) => {
      const all = [];
      client.subscribe({ query: '{ ok: __typename }' }, {
        next: (v) => all.push(v),
        error: reject,
        complete: () => resolve(all),
      });
    });
    assert.deepEqual(result, [{ data: { ok: 'Query' } }]);
    assert.equal(count((s) => s.stream), 1, 'still one stream');
    assert.equal(count((s) => s.method === 'PUT'), 1, 'still one reservation');
  });

  await check('a validation error is the POST\'s answer (the stream stays)', 10000, async () => {
    const err = await new Promise((resolve) => {
      client.subscribe({ query: '{ nope }' }, {
        next: () => resolve(new Error('a next')),
        error: resolve,
        complete: () => resolve(new Error('completed')),
      });
    });
    assert.ok(err && err.response, `a NetworkError with the response: ${err}`);
    assert.notEqual(err.response.status, 202);
    const post = seen.filter((s) => s.method === 'POST').pop();
    assert.match(post.body, /Cannot query field/);
    assert.equal(count((s) => s.stream), 1, 'still one stream');
  });

  // b ends before the client (disposing the client closes the stream
  // first: b's DELETE would then find no reservation)
  dispose.b();
  await check('the second DELETE', 5000, () =>
    until(() => count((s) => s.method === 'DELETE' && s.status === 200) === 2, 'b\'s DELETE'));
  client.dispose();
  await sleep(100);
  console.log(failures ? `${failures} failed` : 'all passed');
  process.exit(failures ? 1 : 0);
})();
