// The peers' side of the planning benchmark: one planner in one process,
// as its users run it. `apollo`: @apollo/query-planner's QueryPlanner over
// @apollo/federation-internals' Supergraph (what Apollo Gateway runs);
// `hive`: @graphql-hive/router-query-planner (Hive Router's Rust planner as
// a Node addon). Loads the supergraph (timed), then plans each query REPS
// times and prints, one JSON object a line (run.py and audit.py read them):
//   {"load_ms":..,"rss_load_kb":..}
//   {"query":FILE,"fetches":N,"median_us":..,"max_us":..} or {"query":FILE,"error":MSG}
//   {"plan_us":{"p50":..,"p99":..,"max":..,"samples":N},"rss_kb":..,"rss_hwm_kb":..}
// Plan time = parse + plan (Apollo: graphql parse + operationFromDocument +
// buildQueryPlan; Hive: plan(text), which parses itself). Fetches = the
// plan's Fetch and BatchFetch nodes, each one subgraph request.
// Usage: PEERS=NODE_PACKAGES_DIR node peers.mjs apollo|hive SUPERGRAPH REPS QUERY_FILE...
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(path.join(process.env.PEERS, "package.json"));
const [kind, sgPath, repsArg, ...files] = process.argv.slice(2);
const reps = Math.max(1, Number(repsArg) || 1);

function statusKb(field) {
  const m = fs
    .readFileSync("/proc/self/status", "utf8")
    .match(new RegExp(`^${field}:\\s+(\\d+)`, "m"));
  return m ? Number(m[1]) : -1;
}

function countFetches(node) {
  if (!node) return 0;
  switch (node.kind) {
    case "Fetch":
    case "BatchFetch":
      return 1;
    case "Flatten":
      return countFetches(node.node);
    case "Sequence":
    case "Parallel":
      return node.nodes.reduce((n, c) => n + countFetches(c), 0);
    case "Condition":
      return countFetches(node.ifClause) + countFetches(node.elseClause);
    case "Subscription":
      return countFetches(node.primary) + countFetches(node.rest);
    case "Defer":
      return (
        countFetches(node.primary?.node) +
        (node.deferred ?? []).reduce((n, d) => n + countFetches(d.node), 0)
      );
    default:
      throw new Error(`unknown plan node ${node.kind}`);
  }
}

const sdl = fs.readFileSync(sgPath, "utf8");
let plan;
const t0 = process.hrtime.bigint();
if (kind === "apollo") {
  const { Supergraph, operationFromDocument } = require(
    "@apollo/federation-internals",
  );
  const { QueryPlanner } = require("@apollo/query-planner");
  const { parse } = require("graphql");
  const supergraph = Supergraph.build(sdl);
  const api = supergraph.apiSchema();
  const planner = new QueryPlanner(supergraph);
  plan = (text) =>
    planner.buildQueryPlan(operationFromDocument(api, parse(text)));
} else if (kind === "hive") {
  const { QueryPlanner } = require("@graphql-hive/router-query-planner");
  const planner = new QueryPlanner(sdl);
  const labels = new Set();
  plan = (text) => planner.plan(text, null, labels, 0);
} else {
  console.error("peers.mjs: apollo or hive");
  process.exit(2);
}
const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
console.log(
  JSON.stringify({ load_ms: loadMs, rss_load_kb: statusKb("VmRSS") }),
);

const all = [];
for (const file of files) {
  const text = fs.readFileSync(file, "utf8");
  const mine = [];
  let fetches = 0;
  try {
    for (let r = 0; r < reps; r++) {
      const s = process.hrtime.bigint();
      const p = plan(text);
      mine.push(Number(process.hrtime.bigint() - s) / 1e3);
      fetches = countFetches(p.node);
    }
  } catch (e) {
    console.log(
      JSON.stringify({ query: file, error: String(e.message ?? e).slice(0, 300) }),
    );
    continue;
  }
  all.push(...mine);
  mine.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      query: file,
      fetches,
      median_us: mine[Math.floor((mine.length - 1) / 2)],
      max_us: mine[mine.length - 1],
      samples_us: mine,
    }),
  );
}
all.sort((a, b) => a - b);
const pct = (p) => all[Math.min(all.length - 1, Math.round(p * (all.length - 1)))];
console.log(
  JSON.stringify({
    plan_us: all.length
      ? { p50: pct(0.5), p99: pct(0.99), max: all[all.length - 1], samples: all.length }
      : null,
    rss_kb: statusKb("VmRSS"),
    rss_hwm_kb: statusKb("VmHWM"),
  }),
);
