// The client of bench/defer-http: POSTs
//   query($ms: Int!) { fast ... @defer(label: "slow") { slow(ms: $ms) } }
// with Accept: multipart/mixed to each system, N requests with C in flight
// over keep-alive connections, and times each request from its write to
//   - the first payload: the first part's closing boundary read,
//   - the last payload: the response's end.
// Before timing, one request per system is checked: its payloads, merged
// (pending ids and paths, incremental data), equal {"data":{"fast":"fast",
// "slow":"slow"}}, for every system alike.
//
// Usage: node client.js --delay MS --requests N --concurrency C[,C...]
//          NAME=URL [NAME=URL...]
// Prints one line per system and concurrency (ms): median and p99 to the
// first payload and to the last, and the delay; exits 1 when a check fails.
'use strict';
const http = require('http');

const args = process.argv.slice(2);
let delay = 100, requests = 100, conc = [1, 32];
const systems = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--delay') delay = +args[++i];
  else if (args[i] === '--requests') requests = +args[++i];
  else if (args[i] === '--concurrency') conc = args[++i].split(',').map(Number);
  else {
    const eq = args[i].indexOf('=');
    systems.push({ name: args[i].slice(0, eq), url: new URL(args[i].slice(eq + 1)) });
  }
}
if (!systems.length || !(delay >= 0) || !(requests > 0)) {
  console.error('usage: client.js --delay MS --requests N --concurrency C[,C] NAME=URL...');
  process.exit(2);
}

const QUERY = 'query($ms: Int!) { fast ... @defer(label: "slow") { slow(ms: $ms) } }';
const BODY = JSON.stringify({ query: QUERY, variables: { ms: delay } });
const FIRST_END = Buffer.from('\r\n---');

// One request: {first, last} in ms and the raw body.
function one(sys, agent) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let first = null;
    const chunks = [];
    let size = 0;
    const req = http.request({
      host: sys.url.hostname, port: sys.url.port, path: sys.url.pathname, method: 'POST', agent,
      headers: {
        'Content-Type': 'application/json', Accept: 'multipart/mixed',
        'Content-Length': Buffer.byteLength(BODY),
      },
    }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${sys.name}: status ${res.statusCode}`));
      res.on('data', (c) => {
        chunks.push(c);
        size += c.length;
        // the first part is whole once its closing boundary came (the body
        // opens with one: look past it)
        if (first === null && size > FIRST_END.length &&
            Buffer.concat(chunks).indexOf(FIRST_END, FIRST_END.length) >= 0)
          first = process.hrtime.bigint();
      });
      res.on('end', () => {
        const last = process.hrtime.bigint();
        resolve({
          first: Number(first - t0) / 1e6, last: Number(last - t0) / 1e6,
          body: Buffer.concat(chunks).toString(), type: res.headers['content-type'],
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(BODY);
  });
}

// The JSON parts of a multipart/mixed body with boundary "-".
function parts(body) {
  if (!body.startsWith('\r\n---\r\n') || !body.endsWith('\r\n-----\r\n'))
    throw new Error('not a multipart/mixed body with boundary "-": ' + JSON.stringify(body.slice(0, 80)));
  return body.slice(7, -9).split('\r\n---\r\n').map((p) => {
    const at = p.indexOf('\r\n\r\n');
    if (!/^content-type: application\/json/i.test(p.slice(0, at))) throw new Error('part head ' + p);
    return JSON.parse(p.slice(at + 4));
  });
}

// The payloads merged: the final {data, errors?}.
function merge(payloads) {
  const out = { data: payloads[0].data };
  const errors = [...(payloads[0].errors || [])];
  const pending = new Map();
  for (const p of payloads) {
    for (const x of p.pending || []) pending.set(x.id, x.path);
    for (const inc of p.incremental || []) {
      if (!pending.has(inc.id)) throw new Error('unknown pending id ' + inc.id);
      let at = out.data;
      for (const k of [...pending.get(inc.id), ...(inc.subPath || [])]) at = at[k];
      if (inc.items) at.push(...inc.items);
      else Object.assign(at, inc.data);
      errors.push(...(inc.errors || []));
    }
    for (const c of p.completed || []) {
      errors.push(...(c.errors || []));
      pending.delete(c.id);
    }
  }
  if (pending.size) throw new Error('ids never completed: ' + [...pending.keys()]);
  if (payloads[payloads.length - 1].hasNext !== false) throw new Error('the last payload has hasNext');
  if (errors.length) out.errors = errors;
  return out;
}

function canon(v) {
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  if (v && typeof v === 'object')
    return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
  return JSON.stringify(v);
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function run(sys, c) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: c });
  const times = [];
  let next = 0;
  // warm: a connection per slot, the document cached
  await Promise.all(Array.from({ length: c }, () => one(sys, agent)));
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: c }, async () => {
    while (next < requests) {
      next++;
      const r = await one(sys, agent);
      times.push(r);
    }
  }));
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  agent.destroy();
  const first = times.map((t) => t.first).sort((a, b) => a - b);
  const last = times.map((t) => t.last).sort((a, b) => a - b);
  return {
    first50: quantile(first, 0.5), first99: quantile(first, 0.99),
    last50: quantile(last, 0.5), last99: quantile(last, 0.99), rps: requests / wall,
  };
}

async function main() {
  const want = canon({ data: { fast: 'fast', slow: 'slow' } });
  let ok = true;
  const payloadsOf = {};
  for (const sys of systems) {
    const r = await one(sys, new http.Agent());
    const ps = parts(r.body);
    const merged = canon(merge(ps));
    payloadsOf[sys.name] = JSON.stringify(ps);
    const good = merged === want && ps.length === 2 && r.last >= delay;
    ok = ok && good;
    console.log(`check ${sys.name.padEnd(10)} ${ps.length} payloads, merged ${merged}` +
                ` ${good ? 'ok' : 'WRONG (want ' + want + ' in 2 payloads)'}`);
  }
  const names = Object.keys(payloadsOf);
  const same = names.every((n) => payloadsOf[n] === payloadsOf[names[0]]);
  console.log(`payloads byte-identical across systems: ${same ? 'yes' : 'no'}`);
  if (!ok) process.exit(1);
  console.log(`\ndelay D = ${delay} ms, ${requests} requests per row, times in ms from the request's write`);
  console.log('system      in flight  first p50  first p99   last p50   last p99   last-D p50    req/s');
  for (const c of conc) {
    for (const sys of systems) {
      const s = await run(sys, c);
      const f = (x) => x.toFixed(2).padStart(10);
      console.log(`${sys.name.padEnd(10)} ${String(c).padStart(10)} ${f(s.first50)} ${f(s.first99)} ` +
                  `${f(s.last50)} ${f(s.last99)} ${f(s.last50 - delay).padStart(12)} ${s.rps.toFixed(0).padStart(8)}`);
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
