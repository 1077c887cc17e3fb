// The Node peer of the subscription fan-out benchmark: ws + graphql-ws 6 +
// graphql-js, as graphql-ws's README sets them up, with an in-process
// publisher: POST /publish with an event's JSON pushes {events: EVENT} to
// every subscriber's async iterator (graphql-js's subscribe maps it through
// the schema). Usage: node peer.cjs PORT SCHEMA_FILE (NODE_PATH: the
// folder holding graphql, graphql-ws and ws).
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const { WebSocketServer } = require('ws');
const { useServer } = require('graphql-ws/use/ws');
const { buildSchema } = require('graphql');

const [, , port, schemaFile] = process.argv;
const schema = buildSchema(fs.readFileSync(schemaFile, 'utf8'));
const subscribers = new Set();

// One subscriber's source stream: a queue its pushes fill.
function events() {
  const queue = [];
  let wake = null;
  let done = false;
  const push = (value) => {
    queue.push(value);
    if (wake) {
      wake();
      wake = null;
    }
  };
  subscribers.add(push);
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      while (!queue.length && !done) await new Promise((r) => (wake = r));
      if (done) return { done: true, value: undefined };
      return { done: false, value: queue.shift() };
    },
    async return() {
      done = true;
      subscribers.delete(push);
      if (wake) wake();
      return { done: true, value: undefined };
    },
  };
}

const roots = { query: { ok: () => true }, subscription: { events } };

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/publish') {
    res.writeHead(404);
    res.end();
    return;
  }
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    let event;
    try {
      event = JSON.parse(body);
    } catch {
      res.writeHead(400);
      res.end();
      return;
    }
    for (const push of subscribers) push({ events: event });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ subscribers: subscribers.size }));
  });
});

const wss = new WebSocketServer({ server, path: '/graphql' });
useServer({ schema, roots }, wss);
server.listen(Number(port), '127.0.0.1', () => console.log('listening'));
