// The Node peers of bench/http/run.sh, serving the Star Wars schema of
// ../../examples/starwars on http://127.0.0.1:PORT/graphql:
//   node peers.js graphql-http PORT   graphql-js through graphql-http's handler
//   node peers.js graphql-jit PORT    graphql-jit on node:http (compiled
//                                     queries cached by text)
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { buildSchema, parse, validate, GraphQLError } = require('graphql');

const [mode, port] = process.argv.slice(2);
const sdl = fs.readFileSync(
  path.join(__dirname, '../../examples/starwars/schema.graphql'), 'utf8');
const schema = buildSchema(sdl);

const all = ['NEW_HOPE', 'EMPIRE', 'JEDI'];
const chars = {};
for (const [id, droid, name, friends, extra, eps] of [
  ['1000', false, 'Luke Skywalker', ['1002', '1003', '2000', '2001'], 'Tatooine', all],
  ['1001', false, 'Darth Vader', ['1004'], 'Tatooine', all],
  ['1002', false, 'Han Solo', ['1000', '1003', '2001'], null, all],
  ['1003', false, 'Leia Organa', ['1000', '1002', '2000', '2001'], 'Alderaan', all],
  ['1004', false, 'Wilhuff Tarkin', ['1001'], null, ['NEW_HOPE']],
  ['2000', true, 'C-3PO', ['1000', '1002', '1003', '2001'], 'Protocol', all],
  ['2001', true, 'R2-D2', ['1000', '1002', '1003'], 'Astromech', all],
]) {
  chars[id] = { __typename: droid ? 'Droid' : 'Human', id, name, appearsIn: eps,
    friendIds: friends, [droid ? 'primaryFunction' : 'homePlanet']: extra };
}
for (const c of Object.values(chars)) c.friends = c.friendIds.map((f) => chars[f]);
const root = {
  hero: ({ episode }) => (episode === 'EMPIRE' ? chars['1000'] : chars['2001']),
  human: ({ id }) => (chars[id] && chars[id].__typename === 'Human' ? chars[id] : null),
  droid: ({ id }) => (chars[id] && chars[id].__typename === 'Droid' ? chars[id] : null),
};
// Resolvers on the schema itself (both engines honour them); abstract
// types resolve from __typename (graphql-js's default).
const fields = schema.getQueryType().getFields();
for (const name of Object.keys(root)) fields[name].resolve = (_, args) => root[name](args);

if (mode === 'graphql-http') {
  const { createHandler } = require('graphql-http/lib/use/http');
  const handler = createHandler({ schema });
  http.createServer((req, res) => {
    if (req.url.startsWith('/graphql')) handler(req, res);
    else { res.writeHead(404).end(); }
  }).listen(Number(port), '127.0.0.1', () => console.log('listening'));
} else if (mode === 'graphql-jit') {
  const { compileQuery, isCompiledQuery } = require('graphql-jit');
  const cache = new Map();
  http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body;
      try { body = JSON.parse(Buffer.concat(chunks).toString()); } catch {
        res.writeHead(400).end(); return;
      }
      const key = body.query + '\0' + (body.operationName || '');
      let compiled = cache.get(key);
      if (!compiled) {
        let doc;
        try { doc = parse(body.query); } catch (e) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ errors: [e] })); return;
        }
        const errors = validate(schema, doc);
        if (errors.length) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ errors })); return;
        }
        compiled = compileQuery(schema, doc, body.operationName);
        if (!isCompiledQuery(compiled)) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(compiled)); return;
        }
        cache.set(key, compiled);
      }
      const result = compiled.query(undefined, {}, body.variables || {});
      const out = compiled.stringify(result);
      res.writeHead(200, { 'content-type': 'application/json',
        'content-length': Buffer.byteLength(out) });
      res.end(out);
    });
  }).listen(Number(port), '127.0.0.1', () => console.log('listening'));
} else {
  console.error('usage: node peers.js graphql-http|graphql-jit PORT');
  process.exit(2);
}
