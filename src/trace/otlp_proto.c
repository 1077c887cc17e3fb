/* OTLP/HTTP protobuf (application/x-protobuf) for gql's spans, written
 * straight in the wire format (no generated code): the same spans and
 * attributes as the JSON encoding (otlp_json.c), fields in field-number
 * order, lengths as minimal varints, times as fixed64, ids as raw bytes,
 * strings as valid UTF-8 (a byte that is not becomes U+FFFD, as in JSON).
 *
 *   ExportTraceServiceRequest { resource_spans = 1 }
 *   ResourceSpans { resource = 1, scope_spans = 2 }
 *   Resource { attributes = 1 }   InstrumentationScope { name = 1, version = 2
 * } ScopeSpans { scope = 1, spans = 2 } Span { trace_id = 1, span_id = 2,
 * trace_state = 3, parent_span_id = 4, name = 5, kind = 6, start_time_unix_nano
 * = 7 (fixed64), end_time_unix_nano = 8 (fixed64), attributes = 9, events = 11,
 *          status = 15, flags = 16 (fixed32) }
 *   Event { time_unix_nano = 1 (fixed64), name = 2, attributes = 3 }
 *   Status { message = 2, code = 3 }
 *   KeyValue { key = 1, value = 2 }
 *   AnyValue { string_value = 1, array_value = 5 }  ArrayValue { values = 1 }
 *
 * A message whose length is known only once it is written (a span, an
 * event) gets the bytes its length most likely takes, and is moved in the
 * rare case it takes another number. */
#include "otlp_records.h"

#include <stdlib.h>
#include <string.h>

/* Tags: field number << 3 | wire type (0 varint, 1 fixed64, 2 length-
 * delimited, 5 fixed32). */
enum {
  T_REQ_RESOURCE_SPANS = 1 << 3 | 2,
  T_RS_RESOURCE = 1 << 3 | 2,
  T_RS_SCOPE_SPANS = 2 << 3 | 2,
  T_RES_ATTRIBUTES = 1 << 3 | 2,
  T_SS_SCOPE = 1 << 3 | 2,
  T_SS_SPANS = 2 << 3 | 2,
  T_SCOPE_NAME = 1 << 3 | 2,
  T_SCOPE_VERSION = 2 << 3 | 2,
  T_SPAN_TRACE_ID = 1 << 3 | 2,
  T_SPAN_SPAN_ID = 2 << 3 | 2,
  T_SPAN_TRACE_STATE = 3 << 3 | 2,
  T_SPAN_PARENT = 4 << 3 | 2,
  T_SPAN_NAME = 5 << 3 | 2,
  T_SPAN_KIND = 6 << 3 | 0,
  T_SPAN_START = 7 << 3 | 1,
  T_SPAN_END = 8 << 3 | 1,
  T_SPAN_ATTRIBUTES = 9 << 3 | 2,
  T_SPAN_EVENTS = 11 << 3 | 2,
  T_SPAN_STATUS = 15 << 3 | 2,
  T_SPAN_FLAGS = 16 << 3 | 5, /* two bytes as a varint: 0x85 0x01 */
  T_EVENT_TIME = 1 << 3 | 1,
  T_EVENT_NAME = 2 << 3 | 2,
  T_EVENT_ATTRIBUTES = 3 << 3 | 2,
  T_STATUS_MESSAGE = 2 << 3 | 2,
  T_STATUS_CODE = 3 << 3 | 0,
  T_KV_KEY = 1 << 3 | 2,
  T_KV_VALUE = 2 << 3 | 2,
  T_ANY_STRING = 1 << 3 | 2,
  T_ANY_ARRAY = 5 << 3 | 2,
  T_ARRAY_VALUES = 1 << 3 | 2
};

static inline size_t vlen(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static inline char *varint(char *w, uint64_t v) {
  while (v >= 0x80) {
    *w++ = (char)(v | 0x80);
    v >>= 7;
  }
  *w++ = (char)v;
  return w;
}

static inline char *fixed64(char *w, uint64_t v) {
  for (int i = 0; i < 8; i++)
    w[i] = (char)(v >> (8 * i));
  return w + 8;
}

static inline char *be64(char *w, uint64_t v) {
  for (int i = 0; i < 8; i++)
    w[i] = (char)(v >> (56 - 8 * i));
  return w + 8;
}

/* Whether every byte of s is ASCII: eight a step, the last eight
 * overlapping, a short string byte by byte. */
static inline bool ascii(gql_str s) {
  const char *p = s.ptr;
  size_t n = s.len;
  uint64_t x, acc = 0;
  if (n < 8) {
    for (size_t i = 0; i < n; i++)
      acc |= (unsigned char)p[i];
    return acc < 0x80;
  }
  for (; n > 8; p += 8, n -= 8) {
    memcpy(&x, p, 8);
    acc |= x;
  }
  memcpy(&x, s.ptr + s.len - 8, 8);
  return !((acc | x) & 0x8080808080808080u);
}

/* The length of s as valid UTF-8 (each byte that starts no valid sequence
 * replaced by U+FFFD, 3 bytes). */
static inline size_t u8len(gql_str s) {
  return GQL_LIKELY(ascii(s)) ? s.len : gql_utf8_fix(NULL, s);
}

/* s as valid UTF-8 at w (u8len(s) bytes). */
static inline char *u8put(char *w, gql_str s, size_t n) {
  if (GQL_LIKELY(n == s.len)) { /* (only valid strings keep their length) */
    gql_copy_short(w, s.ptr, n);
    return w + n;
  }
  return w + gql_utf8_fix(w, s);
}

/* Room at the end of b for n more bytes: the cursor, or NULL. */
static inline char *room(gql_buf *b, size_t n) {
  if (GQL_UNLIKELY(b->cap - b->len < n) && !gql_buf_reserve(b, n))
    return NULL;
  return b->data + b->len;
}

/* A string field: tag, length, bytes (room for 11 + 3 * s.len). */
static inline char *str_field(char *w, uint8_t tag, gql_str s) {
  size_t n = u8len(s);
  *w++ = (char)tag;
  w = varint(w, n);
  return u8put(w, s, n);
}

static inline size_t str_field_len(size_t n) {
  return 1 + vlen(n) + n;
}

/* A KeyValue with a string value as field `tag` whose lengths as valid
 * UTF-8 are kl and vl (room for 32 + 3 * the lengths). */
static inline char *kv_len_at(char *w, uint8_t tag, gql_str k, size_t kl,
                              gql_str v, size_t vl) {
  size_t any = str_field_len(vl);
  size_t inner = str_field_len(kl) + 1 + vlen(any) + any;
  *w++ = (char)tag;
  w = varint(w, inner);
  *w++ = T_KV_KEY;
  w = varint(w, kl);
  w = u8put(w, k, kl);
  *w++ = T_KV_VALUE;
  w = varint(w, any);
  *w++ = T_ANY_STRING;
  w = varint(w, vl);
  return u8put(w, v, vl);
}

static char *kv_at(char *w, uint8_t tag, gql_str k, gql_str v) {
  return kv_len_at(w, tag, k, u8len(k), v, u8len(v));
}

static inline size_t worst(gql_str s) {
  return 3 * s.len + 11;
}

/* A KeyValue with its own reservation. */
static void kv(gql_buf *b, uint8_t tag, gql_str k, gql_str v) {
  char *w = room(b, 32 + worst(k) + worst(v));
  if (w)
    b->len = (size_t)(kv_at(w, tag, k, v) - b->data);
}

/* A KeyValue whose value is an array of n strings read from p. */
static void kv_array(gql_buf *b, uint8_t tag, gql_str k, const char *p,
                     uint32_t n) {
  size_t arr = 0, most = 0;
  const char *q = p;
  for (uint32_t i = 0; i < n; i++) {
    gql_str s = otlp_getstr(&q);
    size_t item = str_field_len(u8len(s));
    arr += 1 + vlen(item) + item;
    most += worst(s) + 6;
  }
  size_t kl = u8len(k), any = 1 + vlen(arr) + arr;
  size_t inner = str_field_len(kl) + 1 + vlen(any) + any;
  char *w = room(b, 48 + worst(k) + most);
  if (!w)
    return;
  *w++ = (char)tag;
  w = varint(w, inner);
  w = str_field(w, T_KV_KEY, k);
  *w++ = T_KV_VALUE;
  w = varint(w, any);
  *w++ = T_ANY_ARRAY;
  w = varint(w, arr);
  for (uint32_t i = 0; i < n; i++) {
    gql_str s = otlp_getstr(&p);
    size_t sl = u8len(s);
    *w++ = T_ARRAY_VALUES;
    w = varint(w, str_field_len(sl));
    *w++ = T_ANY_STRING;
    w = varint(w, sl);
    w = u8put(w, s, sl);
  }
  b->len = (size_t)(w - b->data);
}

/* A message of unknown length: its tag and `guess` bytes for the length;
 * returns where its body starts. */
static size_t msg_open(gql_buf *b, uint8_t tag, size_t guess) {
  char *w = room(b, 1 + guess);
  if (!w)
    return 0;
  *w = (char)tag;
  b->len += 1 + guess;
  return b->len;
}

/* Writes the length of the message whose body started at `at`, moving the
 * body when the length takes other than `guess` bytes. */
static void msg_close(gql_buf *b, size_t at, size_t guess) {
  if (b->failed || !at)
    return;
  size_t n = b->len - at, need = vlen(n);
  if (need > guess && !room(b, need - guess))
    return;
  if (need != guess) {
    memmove(b->data + at - guess + need, b->data + at, n);
    b->len = b->len + need - guess;
  }
  varint(b->data + at - guess, n);
}

static void event(gql_buf *b, const otlp_event *e) {
  size_t at = msg_open(b, T_SPAN_EVENTS, 2);
  char *w = room(b, 16 + worst(e->name));
  if (!w)
    return;
  *w++ = T_EVENT_TIME;
  w = fixed64(w, e->time_ns);
  w = str_field(w, T_EVENT_NAME, e->name);
  b->len = (size_t)(w - b->data);
  kv(b, T_EVENT_ATTRIBUTES, GQL_STR("type"), e->type);
  if (e->nloc)
    kv_array(b, T_EVENT_ATTRIBUTES, GQL_STR("locations"), e->locs, e->nloc);
  if (e->npath)
    kv_array(b, T_EVENT_ATTRIBUTES, GQL_STR("path"), e->path, e->npath);
  kv(b, T_EVENT_ATTRIBUTES, GQL_STR("message"), e->message);
  msg_close(b, at, 2);
}

/* The extras and the end of a span past its fixed attributes. */
static void tail(gql_buf *b, const otlp_span *s) {
  bool err = s->flags & REC_ERROR;
  if (err)
    kv(b, T_SPAN_ATTRIBUTES, GQL_STR("error.type"), s->error_type);
  const char *p = s->events;
  for (uint32_t i = 0; i < s->nevents; i++) {
    otlp_event e;
    otlp_event_next(&p, &e);
    event(b, &e);
  }
  if (err && s->kind == SPAN_RESOLVE) {
    /* A resolver's error is a thrown exception in OTel terms. */
    size_t at = msg_open(b, T_SPAN_EVENTS, 1);
    char *w = room(b, 32);
    if (!w)
      return;
    *w++ = T_EVENT_TIME;
    w = fixed64(w, s->end_ns);
    w = str_field(w, T_EVENT_NAME, GQL_STR("exception"));
    b->len = (size_t)(w - b->data);
    kv(b, T_EVENT_ATTRIBUTES, GQL_STR("exception.type"), s->error_type);
    kv(b, T_EVENT_ATTRIBUTES, GQL_STR("exception.message"), s->error);
    msg_close(b, at, 1);
  }
  if (err) {
    char *w = room(b, 16 + worst(s->error));
    if (!w)
      return;
    size_t ml = u8len(s->error), inner = str_field_len(ml) + 2;
    *w++ = T_SPAN_STATUS;
    w = varint(w, inner);
    *w++ = T_STATUS_MESSAGE;
    w = varint(w, ml);
    w = u8put(w, s->error, ml);
    *w++ = T_STATUS_CODE;
    *w++ = 2;
    b->len = (size_t)(w - b->data);
  }
}

void gql_otlp_proto_span(gql_buf *b, const otlp_reader *r, const otlp_span *s) {
  bool resolve = s->kind == SPAN_RESOLVE;
  gql_str res = s->resource.len ? s->resource : s->name;
  size_t res_len = resolve ? gql_otlp_resource_len(s) : res.len;
  size_t need = 512 + worst(r->tracestate) + worst(s->name) + 3 * res_len;
  if (resolve)
    need += worst(s->fname) * 2 + worst(s->path) + worst(s->type) * 2;
  size_t span = msg_open(b, T_SS_SPANS, 2);
  char *w = room(b, need);
  if (!w)
    return;
  *w++ = T_SPAN_TRACE_ID;
  *w++ = 16;
  w = be64(w, r->trace_hi);
  w = be64(w, r->trace_lo);
  *w++ = T_SPAN_SPAN_ID;
  *w++ = 8;
  w = be64(w, s->id);
  if (r->tracestate.len)
    w = str_field(w, T_SPAN_TRACE_STATE, r->tracestate);
  if (s->parent_id) {
    *w++ = T_SPAN_PARENT;
    *w++ = 8;
    w = be64(w, s->parent_id);
  }
  if (resolve) { /* graphql.resolve */
    *w++ = T_SPAN_NAME;
    *w++ = 15;
    w = (memcpy(w, "graphql.resolve", 15), w + 15);
  } else {
    w = str_field(w, T_SPAN_NAME, s->name);
  }
  *w++ = T_SPAN_KIND;
  *w++ = (char)gql_otlp_kind(s->kind);
  *w++ = T_SPAN_START;
  w = fixed64(w, s->start_ns);
  *w++ = T_SPAN_END;
  w = fixed64(w, s->end_ns);
  size_t fname_len = 0, type_len = 0;
  if (resolve) { /* (the keys are ASCII, 18 bytes) */
    fname_len = u8len(s->fname);
    type_len = u8len(s->type);
    w = kv_len_at(w, T_SPAN_ATTRIBUTES, gql_otlp_known[K_FIELD_NAME], 18,
                  s->fname, fname_len);
    w = kv_len_at(w, T_SPAN_ATTRIBUTES, gql_otlp_known[K_FIELD_PATH], 18,
                  s->path, u8len(s->path));
    w = kv_len_at(w, T_SPAN_ATTRIBUTES, gql_otlp_known[K_FIELD_TYPE], 18,
                  s->type, type_len);
  }
  if (GQL_UNLIKELY(s->nattrs)) {
    b->len = (size_t)(w - b->data);
    const char *p = s->attrs;
    for (uint32_t i = 0; i < s->nattrs; i++) {
      gql_str k, v;
      otlp_attr_next(&p, &k, &v);
      kv(b, T_SPAN_ATTRIBUTES, k, v);
    }
    if (!(w = room(b, 256 + 3 * res_len)))
      return;
  }
  if (resolve) {
    /* the resource is written where it ends up, its length known ahead
     * (the names are checked valid UTF-8 first: else the general way) */
    /* (valid UTF-8 keeps its length: then so is the resource) */
    if (GQL_LIKELY(fname_len == s->fname.len && type_len == s->type.len)) {
      size_t any = str_field_len(res_len);
      size_t inner = str_field_len(13) + 1 + vlen(any) + any;
      *w++ = T_SPAN_ATTRIBUTES;
      w = varint(w, inner);
      *w++ = T_KV_KEY;
      *w++ = 13;
      w = (memcpy(w, "resource.name", 13), w + 13);
      *w++ = T_KV_VALUE;
      w = varint(w, any);
      *w++ = T_ANY_STRING;
      w = varint(w, res_len);
      w = gql_otlp_resource(w, s);
    } else {
      char local[256], *d = res_len <= sizeof local ? local : malloc(res_len);
      if (!d) {
        b->failed = true;
        return;
      }
      gql_str copy = {d, (size_t)(gql_otlp_resource(d, s) - d)};
      w = kv_at(w, T_SPAN_ATTRIBUTES, GQL_STR("resource.name"), copy);
      if (d != local)
        free(d);
    }
  } else {
    w = kv_at(w, T_SPAN_ATTRIBUTES, GQL_STR("resource.name"), res);
  }
  /* span.type and component: "graphql", fixed bytes */
  static const char fixed[] = "\x4a\x16\x0a\x09span.type\x12\x09\x0a\x07graphql"
                              "\x4a\x16\x0a\x09"
                              "component\x12\x09\x0a\x07graphql";
  w = (memcpy(w, fixed, sizeof fixed - 1), w + sizeof fixed - 1);
  b->len = (size_t)(w - b->data);
  if (GQL_UNLIKELY(s->flags & (REC_ERROR | REC_EVENTS)))
    tail(b, s);
  if (!(w = room(b, 8)))
    return;
  uint32_t flags = s->remote_parent ? 769 : 257;
  *w++ = (char)0x85; /* T_SPAN_FLAGS as a varint */
  *w++ = 0x01;
  for (int i = 0; i < 4; i++)
    *w++ = (char)(flags >> (8 * i));
  b->len = (size_t)(w - b->data);
  msg_close(b, span, 2);
}

/* ---- the envelope */

/* Resource { service.name, telemetry.sdk.name, telemetry.sdk.language }
 * and InstrumentationScope { "gql", version } as their fields in
 * ResourceSpans and ScopeSpans, into h. */
static void envelope_parts(gql_buf *h, const char *service, size_t *res_len) {
  char tmp[64];
  gql_str svc = gql_cstr(service);
  size_t attrs = 0;
  gql_buf a;
  gql_buf_init(&a, NULL);
  kv(&a, T_RES_ATTRIBUTES, GQL_STR("service.name"), svc);
  kv(&a, T_RES_ATTRIBUTES, GQL_STR("telemetry.sdk.name"), GQL_STR("gql"));
  kv(&a, T_RES_ATTRIBUTES, GQL_STR("telemetry.sdk.language"), GQL_STR("c"));
  attrs = a.len;
  char *w = tmp;
  *w++ = T_RS_RESOURCE;
  w = varint(w, attrs);
  gql_buf_append(h, tmp, (size_t)(w - tmp));
  gql_buf_append(h, a.data, a.len);
  gql_buf_free(&a);
  *res_len = h->len;
  gql_str ver = gql_cstr(gql_version());
  size_t scope = str_field_len(3) + str_field_len(ver.len);
  char *sw = room(h, 16 + scope);
  if (!sw)
    return;
  *sw++ = T_SS_SCOPE;
  sw = varint(sw, scope);
  sw = str_field(sw, T_SCOPE_NAME, GQL_STR("gql"));
  sw = str_field(sw, T_SCOPE_VERSION, ver);
  h->len = (size_t)(sw - h->data);
}

void gql_otlp_proto_open(gql_buf *b, const char *service, size_t *spans_at) {
  gql_buf h;
  gql_buf_init(&h, NULL);
  size_t res_len = 0;
  envelope_parts(&h, service, &res_len);
  /* room for the parts and the three lengths in front of the spans */
  size_t head = h.len + 3 + 3 * 10;
  gql_buf_free(&h);
  if (!room(b, head))
    return;
  b->len = head;
  *spans_at = head;
}

size_t gql_otlp_proto_close(gql_buf *b, const char *service, size_t spans_at) {
  if (b->failed || spans_at > b->len)
    return 0;
  gql_buf h;
  gql_buf_init(&h, NULL);
  size_t res_len = 0;
  envelope_parts(&h, service, &res_len);
  size_t spans = b->len - spans_at;
  size_t scope_part = h.len - res_len;
  size_t ss = scope_part + spans;          /* ScopeSpans */
  size_t rs = res_len + 1 + vlen(ss) + ss; /* ResourceSpans */
  size_t head = 1 + vlen(rs) + res_len + 1 + vlen(ss) + scope_part;
  if (h.failed || head > spans_at) {
    gql_buf_free(&h);
    b->failed = true;
    return 0;
  }
  char *w = b->data + spans_at - head;
  *w++ = T_REQ_RESOURCE_SPANS;
  w = varint(w, rs);
  memcpy(w, h.data, res_len);
  w += res_len;
  *w++ = T_RS_SCOPE_SPANS;
  w = varint(w, ss);
  memcpy(w, h.data + res_len, scope_part);
  gql_buf_free(&h);
  return spans_at - head;
}
