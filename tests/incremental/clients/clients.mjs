// The npm clients reading a server's incremental-delivery responses:
// meros (multipart/mixed, both payload formats), graphql-sse
// (text/event-stream) and Apollo Client 4's HttpLink with its two
// incremental handlers (GraphQL17Alpha9Handler: incrementalSpec=v0.2;
// Defer20220824Handler: deferSpec=20220824), against the recorded corpus.
//
// Usage: node clients.mjs PEERS_DIR BASE_URL CASES_DIR [--case NAME]
//             [--path gql] [--urls FILE]
//   PEERS_DIR  where run.sh installed the clients (its own package.json)
//   BASE_URL   the server: each case is requested at BASE_URL/NAME (the
//              replay server), or with --path gql, at BASE_URL with the
//              case's document, variables and operation name in the body
//              (gql serve); --urls FILE: at the URL its line "NAME URL"
//              gives (incremental_serve: every case, a server each; the
//              cases of the file only). Executed by gql, the payloads need
//              not be graphql-js's byte for byte after the first (ids,
//              grouping): the initial payload must be identical and the
//              merged result the same, in graphql-js 17's format and in
//              Apollo's deferSpec=20220824 (against graphql-js's
//              legacyPayloads, or for the cases of legacy_branching.json
//              against its incremental executor's, for the reason given
//              there)
// Prints one line per failure and "N passed, N failed"; exits 1 on failure.
import {createRequire} from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const [peers, base, casesDir, ...rest] = process.argv.slice(2);
const only = rest.includes('--case') ? rest[rest.indexOf('--case') + 1] : null;
const urlsFile = rest.includes('--urls') ? rest[rest.indexOf('--urls') + 1] : null;
const urls = new Map(urlsFile ? fs.readFileSync(urlsFile, 'utf8').split('\n')
  .map((l) => l.trim().split(/\s+/)).filter((f) => f.length === 2) : []);
const byBody = urlsFile !== null ||
  (rest.includes('--path') && rest[rest.indexOf('--path') + 1] === 'gql');
const require = createRequire(path.join(path.resolve(peers), 'x.js'));
const {meros} = require('meros/node');
const {createClient} = require('graphql-sse');
const apollo = await import(require.resolve('@apollo/client'));
const {GraphQL17Alpha9Handler, Defer20220824Handler} =
  await import(require.resolve('@apollo/client/incremental'));
const {parse} = require('graphql');
const {mergePayloads, mergeLegacyPayloads} =
  await import(new URL('../merge.mjs', import.meta.url));
const BRANCHING = JSON.parse(fs.readFileSync(
  new URL('../legacy_branching.json', import.meta.url), 'utf8')).cases;

let passed = 0, failed = 0;
let current = '(none)';
// Whatever escapes a client (a socket error after its last event, a
// rejection nobody awaited) is a failure of the case at hand, reported
// with the others rather than ending the run unexplained.
for (const event of ['unhandledRejection', 'uncaughtException']) {
  process.on(event, (e) => check(false, `${current} ${event}`, e?.stack ?? String(e)));
}
function check(ok, label, why) {
  if (ok) passed++;
  else {
    failed++;
    console.log(`FAIL ${label}: ${why}`);
  }
}

const urlOf = (c) => (urlsFile ? urls.get(c.name) : byBody ? base : `${base}/${c.name}`);
const bodyOf = (c) => JSON.stringify({
  query: c.document, variables: c.variables ?? {},
  ...(c.operationName ? {operationName: c.operationName} : {}),
});

// One POST with node's http module; resolves with the response.
function post(c, accept) {
  return new Promise((resolve, reject) => {
    const req = http.request(urlOf(c), {
      method: 'POST',
      headers: {'content-type': 'application/json', accept},
    }, (res) => {
      res.on('error', reject);
      resolve(res);
    });
    req.on('error', reject);
    req.end(bodyOf(c));
  });
}

// The payloads as meros reads them, with the time each arrived.
async function viaMeros(c, accept) {
  const res = await post(c, accept);
  const parts = await meros(res);
  const out = [], times = [];
  if (!parts[Symbol.asyncIterator]) {
    throw new Error(`not multipart: ${res.statusCode} ${res.headers['content-type']}`);
  }
  for await (const part of parts) {
    if (!part.json) throw new Error(`a part that is not JSON: ${part.body}`);
    out.push(part.body);
    times.push(performance.now());
  }
  return {payloads: out, times, contentType: res.headers['content-type']};
}

async function viaSse(c) {
  const client = createClient({
    url: urlOf(c), singleConnection: false, retryAttempts: 0,
    fetchFn: fetch,
  });
  const out = [];
  try {
    for await (const p of client.iterate({
      query: c.document, variables: c.variables ?? {},
      ...(c.operationName ? {operationName: c.operationName} : {}),
    })) {
      out.push(p);
    }
  } finally {
    client.dispose();
  }
  return out;
}

// Apollo Client's last emission for the query: the merged result.
async function viaApollo(c, handler) {
  const client = new apollo.ApolloClient({
    link: new apollo.HttpLink({uri: urlOf(c)}),
    cache: new apollo.InMemoryCache(),
    incrementalHandler: handler,
  });
  // Apollo sends one operation a document: the selected one (and the
  // fragments), as a client holding that one operation would
  const full = parse(c.document);
  const ops = full.definitions.filter((d) => d.kind === 'OperationDefinition');
  const op = ops.find((d) => !c.operationName || d.name?.value === c.operationName);
  const doc = {...full, definitions: full.definitions.filter((d) => d === op ||
    d.kind !== 'OperationDefinition')};
  if (op.operation === 'mutation') {
    const r = await client.mutate({mutation: doc, variables: c.variables ?? {},
      errorPolicy: 'all', fetchPolicy: 'no-cache'});
    client.stop();
    return [r];
  }
  const emissions = [];
  await new Promise((resolve, reject) => {
    const sub = client.watchQuery({
      query: doc, variables: c.variables ?? {}, fetchPolicy: 'no-cache',
      errorPolicy: 'all', notifyOnNetworkStatusChange: false,
    }).subscribe({
      next: (r) => {
        emissions.push(r);
        if (!r.loading) { /* 7 ready, 8 with errors */
          sub.unsubscribe();
          resolve();
        }
      },
      error: reject,
    });
  });
  client.stop();
  return emissions;
}

// A client that never finishes is a failure, not a hang (generous: CI
// machines are shared).
const LIMIT_MS = 30000;
function within(ms, promise) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  })]).finally(() => clearTimeout(timer));
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Objects compared without key order (a client merges keys in its order).
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  }
  return v;
}

function withoutTypename(v) {
  if (Array.isArray(v)) return v.map(withoutTypename);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([k]) => k !== '__typename')
      .map(([k, x]) => [k, withoutTypename(x)]));
  }
  return v;
}

const errorsOf = (list) => sortKeys((list ?? []).map((e) => ({message: e.message, path: e.path})))
  .sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

async function runCase(c) {
  const label = c.name;
  current = label;
  const streamed = c.payloads.length > 1;
  // meros, graphql-js 17's format
  try {
    const got = await within(LIMIT_MS, viaMeros(c, 'multipart/mixed'));
    checkPayloads(got.payloads, c, `${label} meros`);
    check(/^multipart\/mixed; boundary="-"/.test(got.contentType), `${label} meros content-type`,
      got.contentType);
  } catch (e) {
    check(false, `${label} meros`, e.stack);
  }
  // meros, Apollo's deferSpec=20220824
  try {
    const got = await within(LIMIT_MS, viaMeros(c, 'multipart/mixed;deferSpec=20220824'));
    checkLegacyPayloads(got.payloads, c, `${label} meros legacy`);
    check(/^multipart\/mixed; boundary="-"; deferSpec=20220824$/.test(got.contentType),
      `${label} meros legacy content-type`, got.contentType);
  } catch (e) {
    check(false, `${label} meros legacy`, e.stack);
  }
  // graphql-sse
  try {
    const got = await within(LIMIT_MS, viaSse(c));
    checkPayloads(got, c, `${label} graphql-sse`);
  } catch (e) {
    check(false, `${label} graphql-sse`, e.stack);
  }
  // Apollo Client 4, both handlers: the final data and errors
  for (const [name, handler, want] of [
    ['apollo', new GraphQL17Alpha9Handler(), c.merged],
    ['apollo legacy', new Defer20220824Handler(),
      byBody && BRANCHING[c.name] ? c.merged : c.legacyMerged],
  ]) {
    try {
      const emissions = await within(LIMIT_MS, viaApollo(c, handler));
      const last = emissions[emissions.length - 1];
      // Apollo's cache adds __typename to the selections it sends: a
      // server that executes them (gql) answers it too
      const data = byBody && !JSON.stringify(want.data).includes('__typename')
        ? withoutTypename(last.data ?? null) : last.data ?? null;
      check(same(sortKeys(data), sortKeys(want.data)), `${label} ${name} data`,
        `want ${JSON.stringify(want.data)}\n got ${JSON.stringify(last.data)}`);
      const errors = last.error?.errors ?? [];
      check(same(errorsOf(errors), errorsOf(want.errors)), `${label} ${name} errors`,
        `want ${JSON.stringify(errorsOf(want.errors))}\n got ${JSON.stringify(errorsOf(errors))}`);
      if (streamed) {
        check(emissions.length >= 1, `${label} ${name} emissions`, 'none');
      }
    } catch (e) {
      check(false, `${label} ${name}`, e.stack);
    }
  }
}

// The payloads a client read: the recorded ones (replay), or (gql) the
// same initial payload, every payload but the last with hasNext true, and
// the same merged result.
function checkPayloads(got, c, label) {
  if (!byBody) {
    check(same(got, c.payloads), label,
      `want ${JSON.stringify(c.payloads)}\n got ${JSON.stringify(got)}`);
    return;
  }
  check(got.length >= 1 && same(got[0], c.payloads[0]), `${label} initial`,
    `want ${JSON.stringify(c.payloads[0])}\n got ${JSON.stringify(got[0])}`);
  check(got.every((p, i) => (i === got.length - 1) === (p.hasNext !== true)), `${label} hasNext`,
    JSON.stringify(got));
  let merged;
  try {
    merged = mergePayloads(got);
  } catch (e) {
    merged = String(e);
  }
  check(same(sortKeys(merged), sortKeys(c.merged)), `${label} merged`,
    `want ${JSON.stringify(c.merged)}\n got ${JSON.stringify(merged)}`);
}

// The deferSpec=20220824 payloads a client read: the recorded ones
// (replay), or (gql) graphql-js's legacy initial payload, every payload but
// the last with hasNext true, none of graphql-js 17's keys, and the same
// merged result (for the cases of legacy_branching.json: graphql-js 17's
// initial payload without pending, and its merged result).
function checkLegacyPayloads(got, c, label) {
  if (!byBody) {
    check(same(got, c.legacyPayloads), label,
      `want ${JSON.stringify(c.legacyPayloads)}\n got ${JSON.stringify(got)}`);
    return;
  }
  const branching = BRANCHING[c.name];
  let want0 = c.legacyPayloads[0];
  if (branching) {
    want0 = {...c.payloads[0]};
    delete want0.pending;
  }
  check(got.length >= 1 && same(got[0], want0), `${label} initial`,
    `want ${JSON.stringify(want0)}\n got ${JSON.stringify(got[0])}`);
  check(got.every((p, i) => (i === got.length - 1) === (p.hasNext !== true)),
    `${label} hasNext`, JSON.stringify(got));
  check(!got.some((p) => 'pending' in p || 'completed' in p ||
    (p.incremental ?? []).some((e) => 'id' in e)), `${label} graphql-js 17's keys`,
  JSON.stringify(got));
  let merged;
  try {
    merged = mergeLegacyPayloads(got);
  } catch (e) {
    merged = String(e);
  }
  const want = branching ? c.merged : c.legacyMerged;
  check(same(sortKeys(merged), sortKeys(want)), `${label} merged`,
    `want ${JSON.stringify(want)}\n got ${JSON.stringify(merged)}`);
}

// Each payload reaches the client when it is written, not with the next:
// with DELAY ms between payloads, the first arrives well before the last.
async function checkFlushing(c, delay) {
  const got = await viaMeros(c, 'multipart/mixed');
  const spread = got.times[got.times.length - 1] - got.times[0];
  check(spread >= 0.8 * delay * (got.times.length - 1), `${c.name} flushing`,
    `${got.times.length} payloads ${delay} ms apart arrived within ${spread.toFixed(1)} ms`);
}

// A client that accepts neither framing gets the refusal (406).
async function checkRefusal(c, accept = 'application/json', why = /@defer or @stream/) {
  const res = await fetch(urlOf(c), {
    method: 'POST', body: bodyOf(c),
    headers: {'content-type': 'application/json', accept},
  });
  const body = await res.json();
  check(res.status === 406 && why.test(body.errors?.[0]?.message) &&
    /multipart\/mixed/.test(res.headers.get('accept')), `${c.name} refusal (${accept})`,
  `${res.status} ${JSON.stringify(body)} accept=${res.headers.get('accept')}`);
}

const cases = fs.readdirSync(path.join(casesDir, 'exec')).filter((f) => f.endsWith('.json')).sort()
  .map((f) => JSON.parse(fs.readFileSync(path.join(casesDir, 'exec', f), 'utf8')))
  .filter((c) => (!only || c.name === only) && (!urlsFile || urls.has(c.name)));
for (const c of cases) await runCase(c);
const delay = Number(process.env.GQL_REPLAY_DELAY_MS || 0);
if (delay) {
  const long = cases.filter((c) => c.payloads.length >= 3)[0];
  await checkFlushing(long, delay);
}
const refused = cases.find((c) => c.payloads.length > 1);
if (refused) await checkRefusal(refused);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
