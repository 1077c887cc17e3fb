// The incremental-delivery benchmark, graphql-js 17's side: the seven
// operations of ../shared/bench/README.md (bench/exec/peer_ops.js: the same
// schemas, data and resolvers as bench/exec) run plain with execute() and
// deferred with experimentalExecuteIncrementally() on the schemas with
// GraphQLDeferDirective and GraphQLStreamDirective, every
// payload JSON.stringify'd, as bench_defer does.
//
//   node peers17.js check DIR   DIR holds bench_defer's texts and dumps:
//                               gql's payloads merged equal gql's plain
//                               response, and graphql-js 17's merged
//                               deferred result equals its plain one and
//                               gql's (the introspection ops: gql's own
//                               check only, graphql-js 17 introspects
//                               differently); exits 1 on a difference
//   node peers17.js time DIR TRIALS [OP...]
//                               one line per op: median ns per request of
//                               plain and deferred (all payloads)
//
// NODE_PATH: the node_modules of graphql@17.
'use strict';
const fs = require('fs');
const path = require('path');
const graphql = require('graphql');
const { parse, validate, execute, experimentalExecuteIncrementally } = graphql;

// execute() refuses a schema with @defer or @stream ("experimental
// directives"): the plain operations run on the same schemas without them.
const plainOps = require('../exec/peer_ops.js')(graphql);
const ops = require('../exec/peer_ops.js')(graphql, {
  directives: [graphql.GraphQLDeferDirective, graphql.GraphQLStreamDirective],
});

function prepare(dir) {
  return ops.map(({ name, schema }, i) => {
    const text = (kind) => fs.readFileSync(path.join(dir, `${name}.${kind}.graphql`), 'utf8');
    const plain = parse(text('plain'));
    const deferred = parse(text('defer'));
    for (const doc of [plain, deferred]) {
      const errors = validate(schema, doc);
      if (errors.length) throw new Error(`${name}: ${errors[0].message}`);
    }
    return { name, schema, plainSchema: plainOps[i].schema, plain, deferred };
  });
}

// Every payload of the deferred operation, each stringified (the work a
// server does before writing it).
async function deferredPayloads(op, keep) {
  const r = await experimentalExecuteIncrementally({ schema: op.schema, document: op.deferred });
  if (!('initialResult' in r)) {
    const s = JSON.stringify(r);
    if (keep) keep.push(JSON.parse(s));
    return 1;
  }
  let n = 1;
  const first = JSON.stringify(r.initialResult);
  if (keep) keep.push(JSON.parse(first));
  for await (const p of r.subsequentResults) {
    const s = JSON.stringify(p);
    if (keep) keep.push(JSON.parse(s));
    n++;
  }
  return n;
}

// ------------------------------------------------------------------ check

async function check(dir) {
  const { mergePayloads } = await import('../../tests/incremental/merge.mjs');
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  let bad = 0;
  const fail = (msg) => {
    console.error(`MISMATCH ${msg}`);
    bad = 1;
  };
  for (const op of prepare(dir)) {
    const read = (f) => fs.readFileSync(path.join(dir, f), 'utf8');
    const gqlPlain = JSON.parse(read(`${op.name}.gql-plain.json`));
    const gqlPayloads = read(`${op.name}.gql-defer.jsonl`).trim().split('\n').map((l) => JSON.parse(l));
    if (gqlPayloads.length < 2) fail(`${op.name}: gql sent ${gqlPayloads.length} payload`);
    const gqlMerged = mergePayloads(gqlPayloads);
    if (!same(gqlMerged, gqlPlain)) fail(`${op.name}: gql's payloads merged differ from its plain response`);
    if (op.name.startsWith('introspection')) continue;
    const jsPlain = JSON.parse(JSON.stringify(execute({ schema: op.plainSchema, document: op.plain })));
    const payloads = [];
    await deferredPayloads(op, payloads);
    const jsMerged = mergePayloads(payloads);
    if (!same(jsMerged, jsPlain)) fail(`${op.name}: graphql-js 17's payloads merged differ from its plain response`);
    if (!same(jsPlain, gqlPlain)) fail(`${op.name}: graphql-js 17's plain response differs from gql's`);
    if (!same(payloads[0], gqlPayloads[0])) fail(`${op.name}: the initial payloads differ`);
    if (payloads.length !== gqlPayloads.length)
      fail(`${op.name}: ${payloads.length} payloads from graphql-js 17, ${gqlPayloads.length} from gql`);
  }
  return bad;
}

// ------------------------------------------------------------------- time

// CPU time (user + system) of the process, as bench/exec/peers.js; the
// deferred runs await the subsequent payloads, which is how graphql-js 17
// delivers them.
async function trial(run, iters) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < iters; i++) await run();
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / iters;
}

async function warmUp(run, trialMs) {
  const t0 = process.hrtime.bigint();
  let n = 0;
  while (Number(process.hrtime.bigint() - t0) < 5e8) {
    await run();
    n++;
  }
  return Math.max(1, Math.round((trialMs * 1e6 * n) / 5e8));
}

function median(t) {
  t.sort((a, b) => a - b);
  const h = t.length >> 1;
  return t.length % 2 ? t[h] : (t[h - 1] + t[h]) / 2;
}

let sink = 0;

async function time(dir, trials, only) {
  const trialMs = Number(process.env.BENCH_TRIAL_MS || 20);
  console.log('op\tplain_ns\tdefer_ns\tpayloads');
  for (const op of prepare(dir)) {
    if (only.length && !only.includes(op.name)) continue;
    const runs = [
      async () => {
        sink += JSON.stringify(execute({ schema: op.plainSchema, document: op.plain })).length;
      },
      async () => {
        sink += await deferredPayloads(op, null);
      },
    ];
    const iters = [];
    for (const run of runs) iters.push(await warmUp(run, trialMs));
    const t = runs.map(() => []);
    for (let k = 0; k < trials; k++)
      for (let i = 0; i < runs.length; i++) t[i].push(await trial(runs[i], iters[i]));
    const payloads = await deferredPayloads(op, null);
    console.log([op.name, ...t.map((x) => median(x).toFixed(1)), payloads].join('\t'));
  }
  if (sink < 0) console.log(sink);
}

const [cmd, dir, arg, ...rest] = process.argv.slice(2);
if (cmd === 'check' && dir) check(dir).then((bad) => process.exit(bad));
else if (cmd === 'time' && dir && Number(arg) > 0) time(dir, Number(arg), rest);
else {
  console.error('usage: node peers17.js check DIR | time DIR TRIALS [OP...]');
  process.exit(2);
}
