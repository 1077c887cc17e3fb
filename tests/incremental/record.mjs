// Records the incremental-delivery corpus with graphql-js 17.1: every case of
// cases.mjs is run through experimentalExecuteIncrementally (the payloads of
// the incremental-delivery RFC: pending / incremental / completed) and
// legacyExecuteIncrementally (the format of Apollo's deferSpec=20220824),
// and every validation case through validate(). See README.md.
//
// Usage: node record.mjs GRAPHQL_MODULE_DIR OUT_DIR
// (record.sh installs graphql@17.1 and calls it.)
import {createRequire} from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import {execCases, validationCases, RULES} from './cases.mjs';
import {mergePayloads, mergeLegacyPayloads} from './merge.mjs';

const [graphqlDir, outDir] = process.argv.slice(2);
if (!graphqlDir || !outDir) {
  console.error('usage: node record.mjs GRAPHQL_MODULE_DIR OUT_DIR');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(graphqlDir), 'x.js'));
const graphql = require('graphql');
const {
  buildSchema, parse, validate, specifiedRules, printSchema,
  GraphQLSchema, GraphQLDeferDirective, GraphQLStreamDirective,
  experimentalExecuteIncrementally, legacyExecuteIncrementally, version,
} = graphql;
if (!version.startsWith('17.1.')) {
  console.error(`record.mjs: graphql ${version} found, 17.1.x needed`);
  process.exit(1);
}

// ---- the schema: SDL, plus the two directives unless the SDL has them

function schemaOf(c) {
  const built = buildSchema(c.schema);
  if (c.directives === false) return built;
  const config = built.toConfig();
  return new GraphQLSchema({
    ...config,
    directives: [...config.directives, GraphQLDeferDirective, GraphQLStreamDirective],
  });
}

// ---- the data convention (README.md): $async and $error markers
//
// A tick is one turn of the event loop (setImmediate): a value marked
// {"$async": v, "$delay": n} is there n turns after its resolver was called,
// which a C test reproduces by completing a pending field n loop turns later.

function ticks(n) {
  return new Promise((resolve) => {
    const step = (k) => (k <= 0 ? resolve() : setImmediate(() => step(k - 1)));
    step(n);
  });
}

function isMarker(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) &&
    ('$async' in v || '$error' in v);
}

function materialize(v) {
  if (Array.isArray(v)) return v.map(materialize);
  if (!isMarker(v)) return v;
  if ('$error' in v) return new Error(v.$error);
  const delay = v.$delay ?? 1;
  return ticks(delay).then(() => {
    const inner = materialize(v.$async);
    if (inner instanceof Error) throw inner;
    return inner;
  });
}

// graphql-js's default resolver (a property of the parent), on marked data.
function fieldResolver(source, args, context, info) {
  if (source === null || typeof source !== 'object') return undefined;
  return materialize(source[info.fieldName]);
}

const plain = (v) => JSON.parse(JSON.stringify(v));

async function payloadsOf(execute, args) {
  const result = await execute(args);
  if (!('initialResult' in result)) return [plain(result)];
  const out = [plain(result.initialResult)];
  for await (const p of result.subsequentResults) out.push(plain(p));
  return out;
}

async function recordExec(c) {
  const schema = schemaOf(c);
  const document = parse(c.document);
  const errors = validate(schema, document).map(plain);
  if (errors.length) {
    throw new Error(`${c.name}: the document does not validate: ${JSON.stringify(errors)}`);
  }
  const args = {
    schema, document, rootValue: c.rootValue, fieldResolver,
    variableValues: c.variables, operationName: c.operationName,
  };
  const payloads = await payloadsOf(experimentalExecuteIncrementally, args);
  const legacyPayloads = await payloadsOf(legacyExecuteIncrementally, args);
  // The convention must make the recording deterministic: run again.
  const again = await payloadsOf(experimentalExecuteIncrementally, args);
  if (JSON.stringify(again) !== JSON.stringify(payloads)) {
    throw new Error(`${c.name}: two runs gave different payloads`);
  }
  const out = {
    name: c.name,
    recordedWith: `graphql@${version}`,
    schema: c.schema.trim() + '\n',
    deferStreamDirectives: c.directives !== false,
    document: c.document,
  };
  if (c.variables !== undefined) out.variables = c.variables;
  if (c.operationName !== undefined) out.operationName = c.operationName;
  out.rootValue = c.rootValue;
  out.payloads = payloads;
  out.merged = mergePayloads(payloads);
  out.legacyPayloads = legacyPayloads;
  out.legacyMerged = mergeLegacyPayloads(legacyPayloads);
  return out;
}

function recordValidation(c) {
  const schema = schemaOf(c);
  const document = parse(c.document);
  const byName = Object.fromEntries(specifiedRules.map((r) => [r.name, r]));
  const rules = {};
  for (const name of RULES) rules[name] = validate(schema, document, [byName[name]]).map(plain);
  return {
    name: c.name,
    recordedWith: `graphql@${version}`,
    schema: c.schema.trim() + '\n',
    deferStreamDirectives: c.directives !== false,
    document: c.document,
    rules,
    allSpecifiedRulesErrors: c.allRules === false ? null
      : validate(schema, document).map(plain),
  };
}

// ---- main

const execDir = path.join(outDir, 'exec');
fs.mkdirSync(execDir, {recursive: true});
const names = new Set();
for (const f of fs.readdirSync(execDir)) if (f.endsWith('.json')) fs.unlinkSync(path.join(execDir, f));
for (const c of execCases) {
  if (names.has(c.name)) throw new Error(`duplicate case name ${c.name}`);
  names.add(c.name);
  const rec = await recordExec(c);
  fs.writeFileSync(path.join(execDir, `${c.name}.json`), JSON.stringify(rec, null, 2) + '\n');
}
const lines = [];
for (const c of validationCases) {
  if (names.has(c.name)) throw new Error(`duplicate case name ${c.name}`);
  names.add(c.name);
  lines.push(JSON.stringify(recordValidation(c)));
}
fs.writeFileSync(path.join(outDir, 'validation.jsonl'), lines.join('\n') + '\n');
// printSchema of every schema the cases use: the directives' definitions
// (descriptions, types, defaults, locations) and their place.
const schemas = new Map();
for (const c of [...execCases, ...validationCases]) {
  const key = JSON.stringify([c.schema, c.directives !== false]);
  if (!schemas.has(key)) {
    schemas.set(key, JSON.stringify({
      schema: c.schema.trim() + '\n',
      deferStreamDirectives: c.directives !== false,
      printed: printSchema(schemaOf(c)) + '\n',
    }));
  }
}
fs.writeFileSync(path.join(outDir, 'schemas.jsonl'), [...schemas.values()].join('\n') + '\n');
console.log(`recorded ${execCases.length} execution cases, ${validationCases.length} ` +
  `validation cases and ${schemas.size} printed schemas with graphql@${version} into ${outDir}`);
