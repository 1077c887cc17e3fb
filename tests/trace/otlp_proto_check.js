// Checks gql's OTLP protobuf against the OpenTelemetry proto definitions:
// the static protobufjs code that @opentelemetry/otlp-transformer
// generates from opentelemetry-proto (NODE_PATH must reach it; see
// test_otlp_protobuf.sh). A body must decode, encode back to the same bytes
// (so: fields in order, minimal lengths, the right wire types, nothing
// unknown), and mean what the OTLP JSON mapping says it means.
//
//   node otlp_proto_check.js pairs DIR N
//     DIR/i.pb and DIR/i.json (i = 1..N) are the same records encoded
//     both ways: the protobuf, decoded and mapped to OTLP JSON, must equal
//     the JSON.
//   node otlp_proto_check.js sink PORT_FILE OUT LIFETIME_S
//     a collector stand-in on 127.0.0.1: POST /v1/traces with Content-Type
//     application/x-protobuf; each body checked and written to OUT as one
//     line of OTLP JSON (for otlp_check.py); anything else a "BAD ..." line
//     and a 4xx. Stops on SIGTERM or after LIFETIME_S.
'use strict';
const fs = require('fs');
const http = require('http');
const assert = require('assert');
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const Long = require('long');

const Req = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const hex = (b) => Buffer.from(b).toString('hex');
const u64 = (v) => Long.fromValue(v).toUnsigned().toString();

// An AnyValue as OTLP JSON (only what gql sends: strings and arrays).
function anyValue(v) {
  if (v.stringValue !== undefined && v.stringValue !== null) return { stringValue: v.stringValue };
  if (v.arrayValue) return { arrayValue: { values: (v.arrayValue.values || []).map(anyValue) } };
  throw new Error('unexpected AnyValue ' + JSON.stringify(v));
}
const kvs = (list) => (list || []).map((kv) => ({ key: kv.key, value: anyValue(kv.value) }));

function span(s) {
  const o = { traceId: hex(s.traceId), spanId: hex(s.spanId) };
  if (s.traceState) o.traceState = s.traceState;
  if (s.parentSpanId && s.parentSpanId.length) o.parentSpanId = hex(s.parentSpanId);
  o.name = s.name;
  o.kind = s.kind;
  o.startTimeUnixNano = u64(s.startTimeUnixNano);
  o.endTimeUnixNano = u64(s.endTimeUnixNano);
  o.attributes = kvs(s.attributes);
  if (s.events && s.events.length)
    o.events = s.events.map((e) => ({
      timeUnixNano: u64(e.timeUnixNano),
      name: e.name,
      attributes: kvs(e.attributes),
    }));
  if (s.status) o.status = { code: s.status.code || 0, message: s.status.message || '' };
  o.flags = s.flags;
  return o;
}

// Decodes a body; throws unless it re-encodes to the same bytes. Returns
// the request as OTLP JSON.
function decode(buf) {
  const m = Req.decode(buf);
  const again = Buffer.from(Req.encode(m).finish());
  if (!again.equals(buf)) {
    let i = 0;
    while (i < buf.length && buf[i] === again[i]) i++;
    throw new Error(`not canonical: re-encoded bytes differ at ${i} of ${buf.length}` +
      ` (${buf.slice(i, i + 8).toString('hex')} vs ${again.slice(i, i + 8).toString('hex')})`);
  }
  return {
    resourceSpans: m.resourceSpans.map((rs) => ({
      resource: { attributes: kvs(rs.resource.attributes) },
      scopeSpans: rs.scopeSpans.map((ss) => ({
        scope: { name: ss.scope.name, version: ss.scope.version },
        spans: ss.spans.map(span),
      })),
    })),
  };
}

function pairs(dir, n) {
  for (let i = 1; i <= n; i++) {
    const pb = fs.readFileSync(`${dir}/${i}.pb`);
    const json = JSON.parse(fs.readFileSync(`${dir}/${i}.json`, 'utf8'));
    const got = decode(pb);
    assert.deepStrictEqual(got, json, `pair ${i}: protobuf and JSON differ`);
  }
  // The comparison must be able to fail: a changed time, attribute or
  // parent in the decoded request is caught.
  const pb = fs.readFileSync(`${dir}/1.pb`);
  const json = JSON.parse(fs.readFileSync(`${dir}/1.json`, 'utf8'));
  const muts = [
    (r) => { r.resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano += '0'; },
    (r) => { r.resourceSpans[0].scopeSpans[0].spans[1].attributes[0].value.stringValue = 'x'; },
    (r) => { delete r.resourceSpans[0].scopeSpans[0].spans[1].parentSpanId; },
    (r) => { r.resourceSpans[0].scopeSpans[0].spans[0].flags = 1; },
  ];
  for (const [k, mut] of muts.entries()) {
    const r = decode(pb);
    mut(r);
    assert.throws(() => assert.deepStrictEqual(r, json), undefined, `mutation ${k} not caught`);
  }
  // ...and so must the canonical check: a length varint padded to two
  // bytes decodes the same but is not what the encoder would write.
  const padded = Buffer.concat([Buffer.from([pb[0], (pb[1] | 0x80)]), Buffer.from([0x00]), pb.slice(2)]);
  if (pb[1] < 0x80) assert.throws(() => decode(padded), /not canonical/);
  console.log(`otlp_proto_check: ${n} pairs equal`);
}

function sink(portFile, out, lifetime) {
  const f = fs.openSync(out, 'a');
  const line = (s) => fs.writeSync(f, s + '\n');
  const srv = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const answer = (code, body) => {
        res.writeHead(code, { 'Content-Type': 'application/x-protobuf' });
        res.end(body || '');
      };
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        line(`BAD ${req.method} ${req.url}`);
        return answer(404);
      }
      const ctype = (req.headers['content-type'] || '').split(';')[0].trim();
      if (ctype !== 'application/x-protobuf') {
        line('BAD content-type ' + ctype);
        return answer(415);
      }
      try {
        line(JSON.stringify(decode(Buffer.concat(chunks))));
      } catch (e) {
        line('BAD protobuf ' + e.message);
        return answer(400);
      }
      answer(200);
    });
  });
  srv.listen(0, '127.0.0.1', () => {
    fs.writeFileSync(portFile + '.tmp', String(srv.address().port));
    fs.renameSync(portFile + '.tmp', portFile);
  });
  const stop = () => srv.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  setTimeout(stop, lifetime * 1000).unref();
}

const [mode, a, b, c] = process.argv.slice(2);
if (mode === 'pairs') pairs(a, Number(b));
else if (mode === 'sink') sink(a, b, Number(c || 120));
else {
  console.error('usage: otlp_proto_check.js pairs DIR N | sink PORT_FILE OUT [LIFETIME_S]');
  process.exit(2);
}
