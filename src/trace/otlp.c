/* OTLP/HTTP JSON (ExportTraceServiceRequest) for gql's spans: hex ids,
 * 64-bit integers as decimal strings, integer enums, the mapping of the
 * tracing reference §12.6. */
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A JSON string; plain ASCII (the names, paths and most values) is copied
 * as is, anything else goes through the escaping writer. */
static void jstr(gql_buf *b, gql_str s) {
  for (size_t i = 0; i < s.len; i++) {
    unsigned char c = (unsigned char)s.ptr[i];
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
      gql_json_write_string(b, s);
      return;
    }
  }
  if (gql_buf_reserve(b, s.len + 2)) {
    b->data[b->len++] = '"';
    memcpy(b->data + b->len, s.ptr, s.len);
    b->len += s.len;
    b->data[b->len++] = '"';
  }
}

static void u64dec(gql_buf *b, uint64_t v) {
  char d[24];
  size_t n = sizeof d;
  do
    d[--n] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  gql_buf_append(b, d + n, sizeof d - n);
}

static void kv_str(gql_buf *b, bool *first, gql_str key, gql_str v) {
  gql_buf_puts(b, *first ? "{\"key\":" : ",{\"key\":");
  *first = false;
  jstr(b, key);
  gql_buf_puts(b, ",\"value\":{\"stringValue\":");
  jstr(b, v);
  gql_buf_puts(b, "}}");
}

static void kv_array(gql_buf *b, bool *first, const char *key,
                     const gql_str *items, uint32_t n) {
  gql_buf_puts(b, *first ? "{\"key\":" : ",{\"key\":");
  *first = false;
  gql_json_write_string(b, gql_cstr(key));
  gql_buf_puts(b, ",\"value\":{\"arrayValue\":{\"values\":[");
  for (uint32_t i = 0; i < n; i++) {
    gql_buf_puts(b, i ? ",{\"stringValue\":" : "{\"stringValue\":");
    gql_json_write_string(b, items[i]);
    gql_buf_putc(b, '}');
  }
  gql_buf_puts(b, "]}}}");
}

static void hex64(gql_buf *b, uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  char h[16];
  for (int i = 15; i >= 0; i--, v >>= 4)
    h[i] = digits[v & 15];
  gql_buf_append(b, h, 16);
}

static void event(gql_buf *b, const trace_event *e) {
  gql_buf_printf(b, "{\"timeUnixNano\":\"%" PRIu64 "\",\"name\":", e->time_ns);
  gql_json_write_string(b, gql_cstr(e->name));
  gql_buf_puts(b, ",\"attributes\":[");
  bool first = true;
  kv_str(b, &first, GQL_STR("type"), e->type);
  if (e->nlocations)
    kv_array(b, &first, "locations", e->locations, e->nlocations);
  if (e->npath)
    kv_array(b, &first, "path", e->path, e->npath);
  kv_str(b, &first, GQL_STR("message"), e->message);
  gql_buf_puts(b, "]}");
}

static void json_span(gql_buf *b, const otlp_ids *ids, const trace_span *s) {
  gql_buf_puts(b, "{\"traceId\":\"");
  hex64(b, ids->trace_hi);
  hex64(b, ids->trace_lo);
  gql_buf_puts(b, "\",\"spanId\":\"");
  hex64(b, s->id);
  gql_buf_putc(b, '"');
  if (s->parent) {
    gql_buf_puts(b, ",\"parentSpanId\":\"");
    hex64(b, s->parent);
    gql_buf_putc(b, '"');
  }
  gql_buf_puts(b, ",\"name\":");
  jstr(b, s->name);
  gql_buf_puts(b, s->kind == SPAN_EXECUTE ? ",\"kind\":2" : ",\"kind\":1");
  gql_buf_puts(b, ",\"startTimeUnixNano\":\"");
  u64dec(b, s->start);
  gql_buf_puts(b, "\",\"endTimeUnixNano\":\"");
  u64dec(b, s->end);
  gql_buf_puts(b, "\",\"attributes\":[");
  bool first = true;
  for (const trace_attr *a = s->attrs; a; a = a->next)
    kv_str(b, &first, a->key, a->value);
  kv_str(b, &first, GQL_STR("resource.name"),
         s->resource.len ? s->resource : s->name);
  kv_str(b, &first, GQL_STR("span.type"), GQL_STR("graphql"));
  kv_str(b, &first, GQL_STR("component"), GQL_STR("graphql"));
  if (s->error_type)
    kv_str(b, &first, GQL_STR("error.type"), gql_cstr(s->error_type));
  gql_buf_putc(b, ']');
  if (s->events || (s->error_type && s->kind == SPAN_RESOLVE)) {
    gql_buf_puts(b, ",\"events\":[");
    bool any = false;
    for (const trace_event *e = s->events; e; e = e->next) {
      if (any)
        gql_buf_putc(b, ',');
      any = true;
      event(b, e);
    }
    if (s->error_type && s->kind == SPAN_RESOLVE) {
      /* A resolver's error is a thrown exception in OTel terms. */
      gql_buf_printf(b,
                     "%s{\"timeUnixNano\":\"%" PRIu64
                     "\",\"name\":\"exception\",\"attributes\":[",
                     any ? "," : "", s->end);
      bool f2 = true;
      kv_str(b, &f2, GQL_STR("exception.type"), gql_cstr(s->error_type));
      kv_str(b, &f2, GQL_STR("exception.message"), s->error);
      gql_buf_puts(b, "]}");
    }
    gql_buf_putc(b, ']');
  }
  if (s->error_type) {
    gql_buf_puts(b, ",\"status\":{\"code\":2,\"message\":");
    gql_json_write_string(b, s->error);
    gql_buf_putc(b, '}');
  }
  gql_buf_puts(b, ",\"flags\":257}");
}

void gql_otlp_batch_open(gql_buf *b, const char *service) {
  gql_buf_puts(b, "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
                  "{\"key\":\"service.name\",\"value\":{\"stringValue\":");
  gql_json_write_string(b, gql_cstr(service));
  gql_buf_puts(b, "}},{\"key\":\"telemetry.sdk.name\",\"value\":{"
                  "\"stringValue\":\"gql\"}},{\"key\":\"telemetry.sdk."
                  "language\",\"value\":{\"stringValue\":\"c\"}}]},"
                  "\"scopeSpans\":[{\"scope\":{\"name\":\"gql\",\"version\":");
  gql_json_write_string(b, gql_cstr(gql_version()));
  gql_buf_puts(b, "},\"spans\":[");
}

void gql_otlp_batch_close(gql_buf *b) {
  gql_buf_puts(b, "]}]}]}");
}

/* ---- records to JSON, on the exporter thread (records.c writes them) */

typedef struct reader {
  const char *p, *end;
  gql_arena *arena;
  bool bad;
} reader;

static uint64_t get64(reader *r) {
  uint64_t v = 0;
  if (r->end - r->p < 8) {
    r->bad = true;
    return 0;
  }
  memcpy(&v, r->p, 8);
  r->p += 8;
  return v;
}
static uint32_t get32(reader *r) {
  uint32_t v = 0;
  if (r->end - r->p < 4) {
    r->bad = true;
    return 0;
  }
  memcpy(&v, r->p, 4);
  r->p += 4;
  return v;
}
/* A pointer the request thread wrote (a pinned image); NULL (r->bad set)
 * when the record is short or the pointer NULL. */
static const char *getptr(reader *r) {
  uintptr_t v = 0;
  if (r->end - r->p < (ptrdiff_t)sizeof v) {
    r->bad = true;
    return NULL;
  }
  memcpy(&v, r->p, sizeof v);
  r->p += sizeof v;
  r->bad |= v == 0;
  return (const char *)v;
}
static gql_str getstr(reader *r) {
  uint32_t n = get32(r);
  if (!r->bad && (n & KNOWN_BIT)) {
    n &= ~KNOWN_BIT;
    if (n < K_NKNOWN)
      return gql_otlp_known[n];
    r->bad = true;
    return GQL_STR("");
  }
  if (r->bad || (size_t)(r->end - r->p) < n) {
    r->bad = true;
    return GQL_STR("");
  }
  gql_str s = {r->p, n};
  r->p += n;
  return s;
}
static gql_str *getstrs(reader *r, uint32_t *n) {
  *n = get32(r);
  if (r->bad || *n > (size_t)(r->end - r->p) / 4) {
    r->bad = true;
    *n = 0;
    return NULL;
  }
  gql_str *v = gql_arena_alloc(r->arena, sizeof *v * (*n + 1));
  for (uint32_t i = 0; v && i < *n; i++)
    v[i] = getstr(r);
  if (!v)
    r->bad = true;
  return v;
}

/* "field:[Type!]!" from the field name, the type name and the wrappers
 * (outside in). */
static gql_str resource_of(gql_arena *a, gql_str name, gql_str type,
                           gql_str mods) {
  size_t n = name.len + 1 + type.len + mods.len * 2;
  char *d = gql_arena_alloc(a, n + 1);
  if (!d)
    return GQL_STR("");
  size_t o = 0;
  memcpy(d, name.ptr, name.len);
  o += name.len;
  d[o++] = ':';
  for (size_t i = 0; i < mods.len; i++)
    if (mods.ptr[i] == 'L')
      d[o++] = '[';
  memcpy(d + o, type.ptr, type.len);
  o += type.len;
  for (size_t i = mods.len; i-- > 0;)
    d[o++] = mods.ptr[i] == 'L' ? ']' : '!';
  d[o] = 0;
  return (gql_str){d, o};
}

static void attr_push(reader *r, trace_span *s, gql_str key, gql_str value) {
  trace_attr *at = gql_arena_alloc(r->arena, sizeof *at);
  if (!at) {
    r->bad = true;
    return;
  }
  *at = (trace_attr){key, value, NULL};
  if (s->attrs_last)
    s->attrs_last->next = at;
  else
    s->attrs = at;
  s->attrs_last = at;
}

/* A relative path: the parent's (when a resolve span) + ".*" per list
 * level + "." + key. */
static gql_str path_of(reader *r, gql_str pp, uint32_t lists, gql_str key) {
  if (lists > 1000000) {
    r->bad = true;
    return GQL_STR("");
  }
  size_t n = pp.len + (size_t)lists * 2 + (pp.len ? 1 : 0) + key.len;
  char *d = gql_arena_alloc(r->arena, n + 1);
  if (!d) {
    r->bad = true;
    return GQL_STR("");
  }
  char *w = d;
  memcpy(w, pp.ptr, pp.len);
  w += pp.len;
  for (uint32_t i = 0; i < lists; i++, w += 2)
    memcpy(w, ".*", 2);
  if (pp.len)
    *w++ = '.';
  memcpy(w, key.ptr, key.len);
  d[n] = 0;
  return (gql_str){d, n};
}

/* One span record (see REC_ATTRS...) into s; paths[] and kinds[] hold the
 * trace's earlier spans'. */
static void read_span(reader *r, const gql_trace_clock *t, uint64_t base,
                      trace_span *s, uint32_t idx, gql_str *paths,
                      uint8_t *kinds) {
  uint32_t head = get32(r), flags = head >> 8;
  s->kind = (uint8_t)(head & 0xff);
  uint32_t parent = get32(r);
  s->start = gql_trace_clock_to_ns(t, get64(r));
  s->end = gql_trace_clock_to_ns(t, get64(r));
  if (parent > idx) { /* parents come first */
    r->bad = true;
    return;
  }
  s->id = gql_trace_span_id(base, idx);
  s->parent = parent ? gql_trace_span_id(base, parent - 1) : 0;
  kinds[idx] = s->kind;
  if (s->kind == SPAN_RESOLVE) {
    s->name = gql_otlp_known[K_RESOLVE];
    reader blob, *q = r; /* where the resolve part is */
    if (flags & REC_BLOB_REF) {
      const char *ptr = getptr(r);
      if (!ptr)
        return;
      uint32_t n;
      memcpy(&n, ptr, 4);
      blob = (reader){ptr + 4, ptr + 4 + n, r->arena, false};
      q = &blob;
    }
    uint32_t lists = get32(q);
    gql_str name = getstr(q), type = getstr(q), mods = getstr(q), path;
    r->bad |= q->bad;
    if (flags & REC_RELATIVE) {
      gql_str key = flags & REC_KEY_IS_NAME ? name : getstr(q);
      r->bad |= q->bad;
      bool pres = parent && kinds[parent - 1] == SPAN_RESOLVE;
      path = r->bad ? GQL_STR("")
                    : path_of(r, pres ? paths[parent - 1] : GQL_STR(""), lists,
                              key);
    } else {
      path = getstr(q);
      r->bad |= q->bad;
    }
    paths[idx] = path;
    attr_push(r, s, gql_otlp_known[K_FIELD_NAME], name);
    attr_push(r, s, gql_otlp_known[K_FIELD_PATH], path);
    attr_push(r, s, gql_otlp_known[K_FIELD_TYPE], type);
    if (!r->bad)
      s->resource = resource_of(r->arena, name, type, mods);
  } else {
    paths[idx] = GQL_STR("");
    s->name = getstr(r);
    if (flags & REC_RES_PINNED) {
      const char *ptr = getptr(r);
      if (!ptr)
        return;
      s->resource = (gql_str){ptr, get32(r)};
    } else {
      s->resource = getstr(r);
    }
  }
  if (flags & REC_ATTRS) {
    uint32_t na = get32(r);
    for (uint32_t i = 0; i < na && !r->bad; i++) {
      gql_str k = getstr(r);
      attr_push(r, s, k, getstr(r));
    }
  }
  if (flags & REC_ERROR) {
    gql_str et = getstr(r);
    s->error = getstr(r);
    s->error_type = gql_arena_strndup(r->arena, et.ptr, et.len);
    if (!s->error_type)
      r->bad = true;
  }
  if (!(flags & REC_EVENTS))
    return;
  uint32_t ne = get32(r);
  for (uint32_t i = 0; i < ne && !r->bad; i++) {
    trace_event *e = gql_arena_alloc(r->arena, sizeof *e);
    if (!e) {
      r->bad = true;
      break;
    }
    *e = (trace_event){0};
    e->time_ns = get64(r);
    gql_str nm = getstr(r);
    e->name = gql_arena_strndup(r->arena, nm.ptr, nm.len);
    e->type = getstr(r);
    e->message = getstr(r);
    e->locations = getstrs(r, &e->nlocations);
    e->path = getstrs(r, &e->npath);
    if (!e->name)
      e->name = "";
    if (s->events_last)
      s->events_last->next = e;
    else
      s->events = e;
    s->events_last = e;
  }
}

int gql_otlp_records_to_json(gql_buf *b, const gql_trace_clock *t,
                             const char *rec, size_t len, bool first) {
  gql_arena *a = gql_arena_new(NULL);
  if (!a)
    return GQL_ENOMEM;
  reader r = {rec, rec + len, a, false};
  while (r.p < r.end && !r.bad) {
    otlp_ids ids;
    ids.trace_hi = get64(&r);
    ids.trace_lo = get64(&r);
    uint64_t base = get64(&r);
    uint32_t n = get32(&r);
    if (r.bad || n > (size_t)(r.end - r.p) / 24) { /* 24: a span's least */
      r.bad = true;
      break;
    }
    gql_str *paths = gql_arena_alloc(a, sizeof *paths * n + 1);
    uint8_t *kinds = gql_arena_alloc(a, n + 1);
    if (!paths || !kinds) {
      r.bad = true;
      break;
    }
    for (uint32_t i = 0; i < n && !r.bad; i++) {
      trace_span s = {0};
      read_span(&r, t, base, &s, i, paths, kinds);
      if (r.bad)
        break;
      if (!first)
        gql_buf_putc(b, ',');
      first = false;
      json_span(b, &ids, &s);
    }
  }
  gql_arena_free(a);
  return r.bad ? GQL_EINVAL : 0;
}
