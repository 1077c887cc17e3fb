// deep_trace with graphql-js execute(), plain or under dd-trace's graphql
// plugin. Usage: node deep_trace.js MODE ITERS TRIALS
// MODE: plain | dd_default | dd_collapse_off | dd_depth_2 | dd_depth_0
// With dd_*, DD_TRACE_AGENT_URL points at the local sink (sink.js).
'use strict'
const mode = process.argv[2] || 'plain'
const iters = +(process.argv[3] || 2000)
const trials = +(process.argv[4] || 9)

if (mode !== 'plain') {
  const tracer = require('dd-trace').init({
    startupLogs: false,
    telemetry: { enabled: false },
    remoteConfig: { enabled: false },
    runtimeMetrics: false,
    plugins: false
  })
  const cfg = {}
  if (mode === 'dd_collapse_off') cfg.collapse = false
  if (mode === 'dd_depth_2') cfg.depth = 2
  if (mode === 'dd_depth_0') cfg.depth = 0
  tracer.use('graphql', cfg)
}
const { buildSchema, parse, validate, execute } = require('graphql')

const schema = buildSchema(`
  type Query { authors: [Author!]! }
  type Author { id: ID! name: String! posts: [Post!]! }
  type Post { id: ID! title: String! comments: [Comment!]! }
  type Comment { id: ID! body: String! }
`)
const authors = []
for (let a = 0; a < 5; a++) {
  const posts = []
  for (let p = 0; p < 5; p++) {
    const comments = []
    for (let c = 0; c < 4; c++) comments.push({ id: `c${a}${p}${c}`, body: `Comment ${c}` })
    posts.push({ id: `p${a}${p}`, title: `Post ${p} of ${a}`, comments })
  }
  authors.push({ id: `a${a}`, name: `Author ${a}`, posts })
}
schema.getQueryType().getFields().authors.resolve = (root) => root.authors
schema.getType('Author').getFields().posts.resolve = (a) => a.posts
schema.getType('Post').getFields().comments.resolve = (p) => p.comments
const root = { authors }
const document = parse('query Deep { authors { id name posts { id title comments { id body } } } }')
if (validate(schema, document).length) throw new Error('invalid')

function one () {
  const r = execute({ schema, document, rootValue: root })
  return JSON.stringify(r)
}

async function main () {
  const out = one()
  if (!out.startsWith('{"data":{"authors":[{"id":"a0","name":"Author 0","posts":[')) throw new Error(out)
  for (let i = 0; i < iters / 4; i++) one()
  const times = []
  for (let t = 0; t < trials; t++) {
    await new Promise((resolve) => setTimeout(resolve, 20)) // let the tracer flush
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < iters; i++) one()
    const t1 = process.hrtime.bigint()
    times.push(Number(t1 - t0) / iters / 1000)
  }
  times.sort((a, b) => a - b)
  const med = times.length % 2 ? times[(times.length - 1) / 2]
    : (times[times.length / 2 - 1] + times[times.length / 2]) / 2
  console.log(`${mode} ${med.toFixed(2)}`)
  process.exit(0)
}
main()
