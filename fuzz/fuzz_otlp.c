/* Span records made from arbitrary bytes (the names, tags, error messages
 * and paths a client's request can put in spans), encoded as OTLP JSON and
 * protobuf: the JSON parses and holds every span; the protobuf is well
 * formed (every tag, varint and length inside its message) with the same
 * number of spans, each with a 16-byte trace id and an 8-byte span id. */
#include "trace/otlp_batch.h"
#include "json/json.h"

#include <stdint.h>
#include <string.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

static uint64_t same(const void *c, uint64_t t) {
  (void)c;
  return t;
}

typedef struct in {
  const uint8_t *p, *end;
} in;

static uint8_t byte(in *x) {
  return x->p < x->end ? *x->p++ : 0;
}

/* A string of up to 63 bytes from the input. */
static gql_str str(in *x) {
  size_t n = byte(x) & 63;
  if (n > (size_t)(x->end - x->p))
    n = (size_t)(x->end - x->p);
  gql_str s = {(const char *)x->p, n};
  x->p += n;
  return s;
}

static bool varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      return true;
  }
  return false;
}

/* Walks a message; returns its number of `count_field` fields, -1 when
 * malformed. `check` is called on each length-delimited field. */
static int walk(const uint8_t *p, const uint8_t *end, uint32_t count_field,
                void (*check)(uint32_t field, const uint8_t *, size_t)) {
  int n = 0;
  while (p < end) {
    uint64_t tag, v;
    if (!varint(&p, end, &tag) || (tag >> 3) == 0)
      return -1;
    switch (tag & 7) {
    case 0:
      if (!varint(&p, end, &v))
        return -1;
      break;
    case 1:
      if (end - p < 8)
        return -1;
      p += 8;
      break;
    case 5:
      if (end - p < 4)
        return -1;
      p += 4;
      break;
    case 2:
      if (!varint(&p, end, &v) || v > (uint64_t)(end - p))
        return -1;
      if (check)
        check((uint32_t)(tag >> 3), p, (size_t)v);
      p += v;
      break;
    default:
      return -1;
    }
    n += (uint32_t)(tag >> 3) == count_field;
  }
  return n;
}

static int spans_seen;
static void span_field(uint32_t f, const uint8_t *p, size_t n) {
  if (f == 1)
    CHECK(n == 16);
  if (f == 2)
    CHECK(n == 8);
  if (f == 9 || f == 11 || f == 15) /* attributes, events, status */
    CHECK(walk(p, p + n, 0, NULL) >= 0);
}
static void scope_spans_field(uint32_t f, const uint8_t *p, size_t n) {
  if (f == 2) {
    spans_seen++;
    CHECK(walk(p, p + n, 0, span_field) >= 0);
  }
}
static void resource_spans_field(uint32_t f, const uint8_t *p, size_t n) {
  if (f == 2)
    CHECK(walk(p, p + n, 0, scope_spans_field) >= 0);
}
static void request_field(uint32_t f, const uint8_t *p, size_t n) {
  CHECK(f == 1);
  CHECK(walk(p, p + n, 0, resource_spans_field) >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  in x = {data, data + size};
  gql_arena *a = gql_arena_new(NULL);
  gql_buf rec;
  gql_buf_init(&rec, NULL);
  uint32_t nspans = 1 + (byte(&x) & 7);
  otlp_ids ids = {.trace_hi = byte(&x), .trace_lo = 1};
  if (byte(&x) & 1) {
    ids.remote_parent = 7;
    ids.tracestate = str(&x);
  }
  gql_otlp_trace_header(&rec, &ids, byte(&x), nspans);
  for (uint32_t i = 0; i < nspans; i++) {
    uint8_t k = byte(&x);
    trace_span s = {
        .kind = (uint8_t)(k & 3), .start = byte(&x), .end = byte(&x) * 1000u};
    s.name = str(&x);
    s.resource = str(&x);
    if (k & 4) {
      trace_attr *at = gql_arena_alloc(a, sizeof *at);
      *at = (trace_attr){str(&x), str(&x), NULL};
      s.attrs = s.attrs_last = at;
    }
    if (k & 8) {
      gql_str et = str(&x);
      s.error_type = gql_arena_strndup(a, et.ptr, et.len);
      s.error = str(&x);
    }
    if (k & 16) {
      trace_event *e = gql_arena_alloc(a, sizeof *e);
      gql_str nm = str(&x);
      *e = (trace_event){.time_ns = byte(&x),
                         .name = gql_arena_strndup(a, nm.ptr, nm.len),
                         .type = str(&x),
                         .message = str(&x)};
      gql_str *items = gql_arena_alloc(a, sizeof *items * 2);
      items[0] = str(&x);
      items[1] = str(&x);
      e->locations = items;
      e->nlocations = byte(&x) & 1;
      e->path = items;
      e->npath = byte(&x) % 3;
      s.events = s.events_last = e;
    }
    uint32_t parent = i ? byte(&x) % (i + 1) : 0;
    if (s.kind == SPAN_RESOLVE) {
      otlp_resolve r = {.name = str(&x), .type = str(&x), .mods = str(&x)};
      if (k & 32) {
        r.relative = true;
        r.key = str(&x);
        r.lists = byte(&x) & 3;
      } else {
        r.path = str(&x);
      }
      gql_otlp_record(&rec, &s, parent, &r);
    } else {
      gql_otlp_record(&rec, &s, parent, NULL);
    }
  }
  for (int proto = 0; proto < 2; proto++) {
    gql_buf out;
    gql_buf_init(&out, NULL);
    otlp_batch ob;
    gql_otlp_batch_begin(&ob, &out, "fuzz \xff",
                         proto ? GQL_OTLP_HTTP_PROTOBUF : GQL_OTLP_HTTP_JSON,
                         same, NULL);
    CHECK(gql_otlp_batch_add(&ob, rec.data, rec.len) == 0);
    gql_str body = gql_otlp_batch_end(&ob);
    CHECK(body.ptr);
    if (!proto) {
      gql_json_value *v = NULL;
      gql_json_error e;
      CHECK(gql_json_parse(a, body.ptr, body.len, NULL, &v, &e) == 0);
      const gql_json_value *sp = gql_json_get(
          &gql_json_get(
               &gql_json_get(v, GQL_STR("resourceSpans"))->array.items[0],
               GQL_STR("scopeSpans"))
               ->array.items[0],
          GQL_STR("spans"));
      CHECK(sp && sp->array.count == nspans);
    } else {
      const uint8_t *p = (const uint8_t *)body.ptr;
      spans_seen = 0;
      CHECK(walk(p, p + body.len, 1, request_field) == 1);
      CHECK(spans_seen == (int)nspans);
    }
    gql_buf_free(&out);
  }
  gql_buf_free(&rec);
  gql_arena_free(a);
  return 0;
}
