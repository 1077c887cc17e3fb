// Composes the generated subgraphs (DIR/subgraphs.json, written by gen.py)
// into DIR/supergraph.graphql with Apollo's composition
// (@apollo/composition, the library behind `rover supergraph compose`), so
// the benchmark's supergraph is one Apollo's tools produce. Prints the
// composition time and the supergraph's size; exits 1 on composition errors.
//
// With --no-satisfiability composition merges and validates the subgraphs
// but skips its satisfiability check (that every field is reachable by some
// plan from every root): Apollo's option for graphs where the check takes
// too long. On the full benchmark graph it ran past 10 minutes and 8 GB of
// heap; run.sh checks satisfiability on a small graph of the same generator
// instead, and Apollo's planner plans every benchmark query on the full one.
// Usage: PEERS=NODE_PACKAGES_DIR node compose.mjs DIR [--no-satisfiability]
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(path.join(process.env.PEERS, "package.json"));
const { composeServices } = require("@apollo/composition");
const { parse } = require("graphql");

const dir = process.argv[2];
const runSatisfiability = !process.argv.includes("--no-satisfiability");
const manifest = JSON.parse(fs.readFileSync(path.join(dir, "subgraphs.json")));
const services = manifest.map((s) => ({
  name: s.name,
  url: s.url,
  typeDefs: parse(fs.readFileSync(path.join(dir, s.file), "utf8")),
}));
const t0 = process.hrtime.bigint();
const result = composeServices(services, { runSatisfiability });
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
if (!result.supergraphSdl) {
  for (const e of (result.errors ?? []).slice(0, 20)) console.error(e.message);
  console.error(`compose: ${result.errors?.length ?? 0} errors`);
  process.exit(1);
}
const out = path.join(dir, "supergraph.graphql");
fs.writeFileSync(out + ".tmp", result.supergraphSdl);
fs.renameSync(out + ".tmp", out);
console.log(
  `compose: ${services.length} subgraphs -> ${out}: ` +
    `${result.supergraphSdl.length} bytes in ${(ms / 1000).toFixed(1)} s` +
    (runSatisfiability ? "" : " (satisfiability not checked)"),
);
