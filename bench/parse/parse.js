// graphql-js parse() on the same documents, timed the same way as
// bench_parse: warm-up, 7 trials of ~0.2 s, median per parse.
const fs = require('fs');
const { parse } = require('graphql');

function median(a) { a.sort((x, y) => x - y); return a[a.length >> 1]; }

console.log(['document', 'bytes', 'us/parse', 'MB/s'].join('\t'));
for (const arg of process.argv.slice(2)) {
  const [name, file] = arg.split('=');
  const src = fs.readFileSync(file, 'utf8');
  const bytes = Buffer.byteLength(src);
  const opts = { maxTokens: Infinity };
  // Warm up for half a second so the JIT has settled, then size the
  // trials from the warmed-up speed.
  let t0 = process.hrtime.bigint();
  let warm = 0;
  while (Number(process.hrtime.bigint() - t0) < 500e6) { parse(src, opts); warm++; }
  const one = Number(process.hrtime.bigint() - t0) / warm;
  const iters = Math.max(1, Math.floor(200e6 / one));
  const trials = [];
  for (let k = 0; k < 7; k++) {
    t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) parse(src, opts);
    trials.push(Number(process.hrtime.bigint() - t0) / iters);
  }
  const ns = median(trials);
  console.log([name, bytes, (ns / 1000).toFixed(2), (bytes / ns * 1000).toFixed(1)].join('\t'));
}
