// Joins the figures of bench_exec (gql, floor), peers.js (graphql-js,
// graphql-jit) and the callgrind runs into one table, and says which
// targets of the execution benchmark are met.
//   node report.js GQL.tsv PEERS.tsv CALLGRIND.tsv
'use strict';
const fs = require('fs');

function readTsv(file) {
  const [head, ...rows] = fs.readFileSync(file, 'utf8').trim().split('\n');
  const keys = head.split('\t');
  const out = {};
  for (const row of rows) {
    const cells = row.split('\t');
    const o = {};
    keys.forEach((k, i) => (o[k] = cells[i] === '-' || cells[i] === undefined ? NaN : cells[i]));
    out[cells[0]] = o;
  }
  return out;
}

const [gqlFile, peersFile, cgFile] = process.argv.slice(2);
const gql = readTsv(gqlFile);
const peers = readTsv(peersFile);
const cg = cgFile && fs.existsSync(cgFile) ? readTsv(cgFile) : {};

// Times: µs with three significant digits.
function us(ns) {
  if (!Number.isFinite(ns)) return '—';
  const v = ns / 1000;
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3);
}
function ratio(a, b) {
  return Number.isFinite(a) && Number.isFinite(b) ? (a / b).toFixed(a / b >= 10 ? 0 : 1) + 'x' : '—';
}
function num(s) {
  return Number.isFinite(+s) ? s : '—';
}
function count(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—';
}

function table(header, rows) {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => '| ' + r.map((c, i) => String(c).padEnd(w[i])).join(' | ') + ' |';
  return [line(header), '|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|', ...rows.map(line)].join('\n');
}

const ops = Object.keys(gql);
const rows = [];
const rows2 = [];
const targets = { jitPrepared: [], jitFull: [], floor: [], jitMembers: [], membersFloor: [] };
for (const op of ops) {
  const g = gql[op];
  const p = peers[op] || {};
  const prepared = +g.prepared_ns, full = +g.full_ns, json = +g.json_ns, floor = +g.floor_ns;
  const members = +g.members_ns;
  const jit = +p.graphql_jit_ns;
  rows.push([
    op, us(prepared), us(full), us(json), us(members), us(+p.graphql_js_full_ns), us(+p.graphql_js_cached_ns),
    us(jit), us(floor), ratio(jit, prepared), ratio(jit, full), ratio(jit, members), ratio(prepared, floor),
    ratio(members, floor),
  ]);
  const c = cg[op] || {};
  rows2.push([
    op, num(g.allocs_prepared), num(g.allocs_full), num(g.allocs_json), num(g.allocs_members),
    count(+c.ir_prepared), count(+c.ir_full), count(+c.ir_members), count(+c.ir_floor),
    ratio(+c.ir_prepared, +c.ir_floor), ratio(+c.ir_members, +c.ir_floor),
    c.mallocs_prepared ?? '—', c.mallocs_full ?? '—',
  ]);
  targets.jitPrepared.push([op, jit / prepared]);
  targets.jitFull.push([op, jit / full]);
  if (Number.isFinite(floor)) targets.floor.push([op, prepared / floor, +c.ir_prepared / +c.ir_floor]);
  // members: the op's best gql prepared, struct members where it has them
  const best = Number.isFinite(members) ? Math.min(members, prepared) : prepared;
  targets.jitMembers.push([op, jit / best]);
  if (Number.isFinite(floor) && Number.isFinite(members))
    targets.membersFloor.push([op, members / floor, +c.ir_members / +c.ir_floor]);
}

console.log(`Median ${process.env.BENCH_CLOCK === 'wall' ? 'wall' : 'CPU'} time per request in µs (lower is better); ratios from the medians.\n`);
console.log(table(
  ['op', 'gql prepared', 'gql full', 'gql json', 'gql members', 'graphql-js full', 'graphql-js cached',
    'graphql-jit', 'C floor', 'jit/gql-prepared', 'jit/gql-full', 'jit/gql-members', 'gql-prepared/floor',
    'gql-members/floor'],
  rows));
console.log('\nPer request: allocator calls through gql_allocator (arena blocks, output, prepared');
console.log('operation), instructions under callgrind, and every malloc/calloc/realloc call seen');
console.log('by callgrind (libc included).\n');
console.log(table(
  ['op', 'allocs prepared', 'allocs full', 'allocs json', 'allocs members', 'Ir prepared', 'Ir full',
    'Ir members', 'Ir floor', 'Ir prepared/floor', 'Ir members/floor', 'mallocs prepared', 'mallocs full'],
  rows2));

const fmt = (list, f) => list.map(([op, r]) => `${op} ${f(r)}`).join(', ');
const x = (r) => (Number.isFinite(r) ? r.toFixed(r >= 10 ? 0 : 2) + 'x' : '—');
const met = (list, ok) => (list.every(([, r]) => ok(r)) ? 'MET' : 'MISSED');
console.log('\nTargets');
console.log(`- gql prepared >= 10x faster than graphql-jit on every op: ${met(targets.jitPrepared, (r) => r >= 10)}` +
  ` (${fmt(targets.jitPrepared, x)})`);
console.log(`- gql full faster than graphql-jit's precompiled query on every op: ${met(targets.jitFull, (r) => r > 1)}` +
  ` (${fmt(targets.jitFull, x)})`);
console.log(`- gql prepared within 2x of the C floor (time): ${met(targets.floor, (r) => r <= 2)}` +
  ` (${fmt(targets.floor, x)}); by instructions: ` +
  targets.floor.map(([op, , ir]) => `${op} ${x(ir)}`).join(', '));
console.log('With struct members (gql members: the fields the structs hold read by gql_schema_set_member and');
console.log('gql_schema_set_list_member, where the op has such fields; the other ops as gql prepared):');
console.log(`- gql prepared >= 10x faster than graphql-jit on every op: ${met(targets.jitMembers, (r) => r >= 10)}` +
  ` (${fmt(targets.jitMembers, x)})`);
console.log(`- gql members within 2x of the C floor (time): ${met(targets.membersFloor, (r) => r <= 2)}` +
  ` (${fmt(targets.membersFloor, x)}); by instructions: ` +
  targets.membersFloor.map(([op, , ir]) => `${op} ${x(ir)}`).join(', '));
