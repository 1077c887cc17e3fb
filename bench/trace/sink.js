// A Datadog agent stand-in on 127.0.0.1: reads and discards every request,
// answers as the agent does. Prints its port.
'use strict'
const http = require('http')
let spans = 0
const server = http.createServer((req, res) => {
  let n = 0
  req.on('data', (c) => { n += c.length })
  req.on('end', () => {
    spans += +(req.headers['x-datadog-trace-count'] || 0)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"rate_by_service":{}}')
  })
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
process.on('SIGTERM', () => { process.stderr.write(`sink: ${spans} traces\n`); process.exit(0) })
