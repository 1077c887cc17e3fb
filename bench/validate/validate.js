// graphql-js validate() (all specified rules) on the same pairs, timed the
// same way as bench_validate: warm-up, 7 trials of ~0.2 s, median.
const fs = require('fs');
const { buildSchema, parse, validate } = require('graphql');

function median(a) { a.sort((x, y) => x - y); return a[a.length >> 1]; }

console.log(['document', 'bytes', 'us/validate', 'errors'].join('\t'));
for (const arg of process.argv.slice(2)) {
  const eq = arg.indexOf('=');
  const name = arg.slice(0, eq);
  const [schemaFile, docFile] = arg.slice(eq + 1).split(':');
  const schema = buildSchema(fs.readFileSync(schemaFile, 'utf8'));
  const src = fs.readFileSync(docFile, 'utf8');
  const doc = parse(src, { maxTokens: Infinity });
  let errors = validate(schema, doc).length;
  let t0 = process.hrtime.bigint();
  validate(schema, doc);
  const one = Number(process.hrtime.bigint() - t0) + 1;
  const iters = Math.max(1, Math.floor(200e6 / one));
  for (let i = 0; i < iters; i++) validate(schema, doc);
  const trials = [];
  for (let k = 0; k < 7; k++) {
    t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) validate(schema, doc);
    trials.push(Number(process.hrtime.bigint() - t0) / iters);
  }
  const ns = median(trials);
  console.log([name, Buffer.byteLength(src), (ns / 1000).toFixed(2), errors].join('\t'));
}
