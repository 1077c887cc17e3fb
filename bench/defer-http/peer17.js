// The graphql-js 17 side of bench/defer-http: a minimal node HTTP server
// over the same schema as bench_defer_http_server.c,
//
//   type Query { fast: String  slow(ms: Int!): String }
//
// `slow` returns a Promise that setTimeout resolves after `ms` ms. A POST
// of {query, variables} runs experimentalExecuteIncrementally; a result with
// deferred parts is written as multipart/mixed with gql's framing (boundary
// "-", each part application/json; charset=utf-8), each payload as it comes;
// a plain result as application/json. Documents are parsed and validated
// once per query text (gql caches its prepared documents too).
//
// Usage: node peer17.js     listens on a free loopback port, prints
//                           "peer17 on http://127.0.0.1:PORT/graphql"
// NODE_PATH: the node_modules of graphql@17.
'use strict';
const http = require('http');
const graphql = require('graphql');
const {
  GraphQLSchema, GraphQLObjectType, GraphQLString, GraphQLInt, GraphQLNonNull,
  GraphQLDeferDirective, specifiedDirectives, parse, validate,
  experimentalExecuteIncrementally,
} = graphql;

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      fast: { type: GraphQLString, resolve: () => 'fast' },
      slow: {
        type: GraphQLString,
        args: { ms: { type: new GraphQLNonNull(GraphQLInt) } },
        resolve: (_, { ms }) => new Promise((resolve) => setTimeout(() => resolve('slow'), ms)),
      },
    },
  }),
  directives: [...specifiedDirectives, GraphQLDeferDirective],
});

const documents = new Map();
function prepare(query) {
  let d = documents.get(query);
  if (!d) {
    const document = parse(query);
    const errors = validate(schema, document);
    d = { document, errors };
    documents.set(query, d);
  }
  return d;
}

const PART = '\r\nContent-Type: application/json; charset=utf-8\r\n\r\n';

async function answer(req, res, body) {
  let params;
  try {
    params = JSON.parse(body);
  } catch (e) {
    res.writeHead(400, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ errors: [{ message: e.message }] }));
    return;
  }
  const { document, errors } = prepare(params.query);
  if (errors.length) {
    res.writeHead(400, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ errors }));
    return;
  }
  const result = await experimentalExecuteIncrementally({
    schema, document, variableValues: params.variables, operationName: params.operationName,
  });
  if (!('initialResult' in result)) {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(result));
    return;
  }
  res.writeHead(200, { 'Content-Type': 'multipart/mixed; boundary="-"; incrementalSpec=v0.2' });
  res.write('\r\n---' + PART + JSON.stringify(result.initialResult) + '\r\n---');
  for await (const payload of result.subsequentResults)
    res.write(PART + JSON.stringify(payload) + '\r\n---');
  res.end('--\r\n');
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    answer(req, res, Buffer.concat(chunks).toString()).catch((e) => {
      res.destroy(e);
    });
  });
});
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => {
  console.log(`peer17 on http://127.0.0.1:${server.address().port}/graphql`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
