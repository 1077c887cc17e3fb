// Serves the subgraphs of the federation shape suites (suites.mjs) and
// writes their supergraphs, composed by @apollo/composition.
// Usage: node serve.mjs PORT OUT_DIR   (NODE_PATH: the npm peers' node_modules)
// Every subgraph of suite S answers POST /S/NAME with graphql-js over
// @apollo/subgraph's buildSubgraphSchema. GET /stats: requests per path since
// the last POST /reset. Once listening it writes OUT_DIR/S.graphql and
// OUT_DIR/S.tests.json per suite, then OUT_DIR/ready.
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { suites } from "./suites.mjs";

const require = createRequire(new URL("file://" + process.env.NODE_PATH + "/"));
const { parse, graphql } = require("graphql");
const { buildSubgraphSchema } = require("@apollo/subgraph");
const { composeServices } = require("@apollo/composition");

const [port, out] = process.argv.slice(2);
const schemas = new Map();
let stats = {};
for (const s of suites)
  for (const g of s.subgraphs)
    schemas.set(`/${s.id}/${g.name}`,
      buildSubgraphSchema({ typeDefs: parse(g.typeDefs), resolvers: g.resolvers }));

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", async () => {
    if (req.url === "/stats") return res.end(JSON.stringify(stats));
    if (req.url === "/reset") { stats = {}; return res.end("{}"); }
    const schema = schemas.get(req.url);
    if (!schema) { res.statusCode = 404; return res.end("no such subgraph"); }
    stats[req.url] = (stats[req.url] || 0) + 1;
    let result;
    try {
      const { query, variables, operationName } = JSON.parse(body);
      result = await graphql({ schema, source: query, variableValues: variables, operationName });
    } catch (e) {
      res.statusCode = 400;
      return res.end(JSON.stringify({ errors: [{ message: String(e) }] }));
    }
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(result));
  });
});
server.listen(+port, "127.0.0.1", () => {
  for (const s of suites) {
    const r = composeServices(s.subgraphs.map((g) => ({
      name: g.name, url: `http://127.0.0.1:${port}/${s.id}/${g.name}`, typeDefs: parse(g.typeDefs),
    })));
    if (!r.supergraphSdl) {
      console.error(`${s.id}: ${r.errors.map((e) => e.message).join("; ")}`);
      process.exit(1);
    }
    writeFileSync(`${out}/${s.id}.graphql`, r.supergraphSdl);
    writeFileSync(`${out}/${s.id}.tests.json`, JSON.stringify(s.tests));
  }
  writeFileSync(`${out}/ready`, suites.map((s) => s.id).join("\n") + "\n");
});
