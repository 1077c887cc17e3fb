// The npm graphql-ws 6 client against two `gql serve --redis` instances
// sharing one redis-server (test_serve_redis.sh): events published with
// redis-cli reach the subscribers of both, filtered by their arguments;
// after a Redis restart they arrive again (resubscribed); a worker whose
// last subscriber of a channel leaves unsubscribes it (PUBSUB NUMSUB) and
// subscribes it again for a new one; a third gql without --redis answers
// a clear error.
// Usage: node serve_redis_client.cjs PORT_A PORT_B PORT_NONE REDIS_PORT
//        (NODE_PATH: graphql-ws, ws; env RESTART_REDIS: a command).
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const { createClient } = require('graphql-ws/client');
const WebSocket = require('ws');

const [portA, portB, portNone, redisPort] = process.argv.slice(2);
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
// Subscribers of the channel on the Redis side (one per gql worker).
const numsub = (channel) => {
  try {
    return Number(redis('PUBSUB', 'NUMSUB', channel).split('\n')[1]);
  } catch {
    return -1; /* (re)starting */
  }
};
async function until(pred, what) {
  for (let i = 0; i < 400; i++) {
    if (pred()) return;
    await sleep(25);
  }
  throw new Error(`never: ${what}`);
}

// A subscription whose events are queued as they come.
function open(port, query) {
  const c = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
  const got = [];
  let waiter = null;
  let ended = null;
  c.subscribe(
    { query },
    {
      next: (v) => {
        got.push(v);
        if (waiter) waiter();
      },
      error: (e) => {
        ended = e;
        if (waiter) waiter();
      },
      complete: () => {
        ended = 'complete';
        if (waiter) waiter();
      },
    },
  );
  return {
    c,
    got,
    async next() {
      while (!got.length && !ended) await new Promise((r) => (waiter = r));
      if (!got.length) throw ended;
      return got.shift();
    },
  };
}

(async () => {
  const q = (room) => `subscription { messages(room: "${room}") { room text } }`;
  let a1, a2, b2, all;
  await check('subscribers on two gql instances receive one PUBLISH', 15000, async () => {
    a1 = open(portA, q('a'));
    a2 = open(portB, q('a'));
    b2 = open(portB, q('b'));
    all = open(portA, 'subscription { messages { text } }');
    await until(() => numsub('gql:messages') === 2, 'both instances subscribed to gql:messages');
    // a subscription is made after its worker subscribed: publish until seen
    await until(() => {
      if (a1.got.length && a2.got.length && all.got.length) return true;
      publish('gql:messages', { room: 'a', text: 'hello' });
      return false;
    }, 'the first event on both');
    const first = { data: { messages: { room: 'a', text: 'hello' } } };
    assert.deepEqual(await a1.next(), first);
    assert.deepEqual(await a2.next(), first);
    a1.got.length = a2.got.length = all.got.length = 0;
  });

  await check('the argument filter: each subscriber gets its room only', 10000, async () => {
    assert.equal(Number(publish('gql:messages', { room: 'b', text: 'to b' })), 2);
    publish('gql:messages', { room: 'a', text: 'to a' });
    assert.deepEqual(await a1.next(), { data: { messages: { room: 'a', text: 'to a' } } });
    assert.deepEqual(await a2.next(), { data: { messages: { room: 'a', text: 'to a' } } });
    assert.deepEqual(await b2.next(), { data: { messages: { room: 'b', text: 'to b' } } });
    assert.deepEqual(await all.next(), { data: { messages: { text: 'to b' } } });
    assert.deepEqual(await all.next(), { data: { messages: { text: 'to a' } } });
    await sleep(100);
    assert.equal(a1.got.length + a2.got.length + b2.got.length, 0, 'no event of another room');
    b2.got.length = 0;
  });

  await check('a message that is not JSON is dropped; the stream goes on', 10000, async () => {
    redis('PUBLISH', 'gql:messages', '{not json');
    publish('gql:messages', { room: 'a', text: 'after' });
    assert.deepEqual(await a1.next(), { data: { messages: { room: 'a', text: 'after' } } });
    await a2.next();
    await all.next();
  });

  await check('Redis restarts: both resubscribe and deliver again', 30000, async () => {
    execFileSync('bash', ['-c', process.env.RESTART_REDIS]);
    await until(() => numsub('gql:messages') === 2, 'both instances resubscribed');
    publish('gql:messages', { room: 'a', text: 'back' });
    assert.deepEqual(await a1.next(), { data: { messages: { room: 'a', text: 'back' } } });
    assert.deepEqual(await a2.next(), { data: { messages: { room: 'a', text: 'back' } } });
  });

  await check('leaving unsubscribes: nothing more is delivered to it', 10000, async () => {
    await b2.c.dispose();
    await sleep(100);
    publish('gql:messages', { room: 'b', text: 'gone' });
    publish('gql:messages', { room: 'a', text: 'still' });
    assert.deepEqual(await a2.next(), { data: { messages: { room: 'a', text: 'still' } } });
    assert.equal(b2.got.length, 0);
  });

  await check("a worker's last subscriber leaving unsubscribes the channel; a new one subscribes it again", 20000, async () => {
    // B keeps a2 only, A keeps a1 and all (one worker each)
    await a2.c.dispose();
    a2 = null;
    await until(() => numsub('gql:messages') === 1, 'B unsubscribed, A still subscribed');
    await a1.c.dispose();
    await all.c.dispose();
    a1 = all = null;
    await until(() => numsub('gql:messages') === 0, 'nobody subscribed');
    assert.equal(Number(publish('gql:messages', { room: 'a', text: 'nobody' })), 0);
    const again = open(portA, q('a'));
    await until(() => numsub('gql:messages') === 1, 'A subscribed again');
    await until(() => {
      if (again.got.length) return true;
      publish('gql:messages', { room: 'a', text: 'again' });
      return false;
    }, 'an event after subscribing again');
    assert.deepEqual(await again.next(), { data: { messages: { room: 'a', text: 'again' } } });
    await again.c.dispose();
    await until(() => numsub('gql:messages') === 0, 'unsubscribed again');
  });

  await check('without --redis a subscription answers a clear error', 10000, async () => {
    const n = open(portNone, q('a'));
    const r = await n.next();
    assert.match(r.errors[0].message, /No event source: subscriptions need gql serve --redis URL/);
    await n.c.dispose();
  });

  for (const s of [a1, a2, all]) if (s) await s.c.dispose();
  console.log(failures ? `${failures} failed` : 'all passed');
  process.exit(failures ? 1 : 0);
})();
