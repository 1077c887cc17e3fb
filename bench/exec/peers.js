// The execution benchmark, the peers' side: graphql-js (full graphql() and
// execute() on a cached document) and graphql-jit (compileQuery once) on the
// seven operations of ../shared/bench/README.md, with the same schemas and
// data as bench_exec.c (resolvers return data prepared before timing).
//
//   node peers.js check DIR      compares every peer's response with gql's
//                                (DIR/OP.gql-prepared.json); exits 1 on a
//                                difference
//   node peers.js time TRIALS [OP...]  prints one line per op (all by
//                                default): median ns per request of
//                                graphql-js full, graphql-js cached and
//                                graphql-jit
//
// Run with NODE_PATH pointing at the node_modules of graphql@16 and
// graphql-jit. The shared folder is GQL_SHARED_DIR (default ../../../shared).
'use strict';
const fs = require('fs');
const path = require('path');
const { graphqlSync, parse, validate, execute } = require('graphql');
const { compileQuery, isCompiledQuery } = require('graphql-jit');

// ------------------------------------------------------------------ ops

const ops = require('./peer_ops.js')(require('graphql')).map(({ name, schema, source }) => {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`${name}: ${errors[0].message}`);
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled)) throw new Error(`${name}: graphql-jit: ${JSON.stringify(compiled)}`);
  return {
    name,
    systems: {
      // graphqlSync is graphql() without the Promise wrapper: parse,
      // validate, execute (every resolver here is synchronous).
      'graphql-js-full': () => JSON.stringify(graphqlSync({ schema, source })),
      'graphql-js-cached': () => JSON.stringify(execute({ schema, document })),
      'graphql-jit': () => compiled.stringify(compiled.query(undefined, {}, {})),
    },
  };
});

// ------------------------------------------------------------------ check

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) o[k] = sortKeys(v[k]);
    return o;
  }
  return v;
}

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function check(dir) {
  let bad = 0;
  for (const op of ops) {
    const gql = fs.readFileSync(path.join(dir, `${op.name}.gql-prepared.json`), 'utf8');
    for (const [system, run] of Object.entries(op.systems)) {
      const out = run();
      fs.writeFileSync(path.join(dir, `${op.name}.${system}.json`), out);
      if (out === gql) continue;
      if (JSON.stringify(sortKeys(JSON.parse(out))) === JSON.stringify(sortKeys(JSON.parse(gql)))) {
        console.log(`note: ${op.name} ${system}: same as gql after sorting keys`);
        continue;
      }
      const i = firstDifference(out, gql);
      console.error(`MISMATCH ${op.name}: ${system} differs from gql at byte ${i} ` +
        `(${out.length} vs ${gql.length} bytes)\n  ${system}: ...${out.slice(Math.max(0, i - 60), i + 60)}\n` +
        `  gql: ...${gql.slice(Math.max(0, i - 60), i + 60)}`);
      bad = 1;
    }
  }
  return bad;
}

// ------------------------------------------------------------------ time

let sink = 0;

// Trials are timed in the process's CPU time (user + system, all threads:
// the JIT's and the GC's helpers count), so that time spent waiting for a
// core on a shared machine does not; BENCH_CLOCK=wall times the wall clock.
const wall = process.env.BENCH_CLOCK === 'wall';
function trial(run, iters) {
  if (wall) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) sink += run().length;
    return Number(process.hrtime.bigint() - t0) / iters;
  }
  const c0 = process.cpuUsage();
  for (let i = 0; i < iters; i++) sink += run().length;
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / iters;
}

// Warm-up: 0.5 s, so that the JIT settles; it also sizes the trials.
function warmUp(run, trialMs) {
  const t0 = process.hrtime.bigint();
  let n = 0;
  while (Number(process.hrtime.bigint() - t0) < 5e8) {
    sink += run().length;
    n++;
  }
  return Math.max(1, Math.round((trialMs * 1e6 * n) / 5e8));
}

function median(t) {
  t.sort((a, b) => a - b);
  const h = t.length >> 1;
  return t.length % 2 ? t[h] : (t[h - 1] + t[h]) / 2;
}

// The systems take turns, one trial each, so that a burst of load on a
// shared machine hits them alike.
function time(trials, only) {
  const trialMs = Number(process.env.BENCH_TRIAL_MS || 20);
  const names = ['graphql-js-full', 'graphql-js-cached', 'graphql-jit'];
  console.log('op\tgraphql_js_full_ns\tgraphql_js_cached_ns\tgraphql_jit_ns');
  for (const op of ops) {
    if (only.length && !only.includes(op.name)) continue;
    const runs = names.map((k) => op.systems[k]);
    const iters = runs.map((run) => warmUp(run, trialMs));
    const t = runs.map(() => []);
    for (let k = 0; k < trials; k++) runs.forEach((run, i) => t[i].push(trial(run, iters[i])));
    console.log([op.name, ...t.map((x) => median(x).toFixed(1))].join('\t'));
  }
  if (sink < 0) console.log(sink);
}

const [cmd, arg, ...rest] = process.argv.slice(2);
if (cmd === 'check') process.exit(check(arg));
else if (cmd === 'time' && Number(arg) > 0) time(Number(arg), rest);
else {
  console.error('usage: node peers.js check DIR | time TRIALS [OP...]');
  process.exit(2);
}
