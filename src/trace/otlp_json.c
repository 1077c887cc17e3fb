/* OTLP/HTTP JSON (ExportTraceServiceRequest) for gql's spans: hex ids,
 * 64-bit integers as decimal strings, integer enums, the mapping of the
 * tracing reference §12.6. One span is written at a cursor into room
 * reserved once for it (the worst case of its strings escaped), its
 * punctuation copied as fixed-size literals, its ids and times converted
 * without division by a variable or a table per digit; a string that needs
 * escaping goes through the JSON writer (gql_json_write_string), so that
 * the bytes are the same either way. */
#include "otlp_records.h"

#include <stdlib.h>
#include <string.h>

/* A string literal at w; the cursor past it. */
#define LIT(w, s) (memcpy((w), (s), sizeof(s) - 1), (w) + sizeof(s) - 1)

/* 8 hex digits of v, most significant first: the nibbles spread to bytes
 * (byte i holds nibble i), put in printing order, then 0-9 / a-f. */
static inline char *hex8(char *w, uint32_t v) {
  uint64_t x = v;
  x = (x | x << 16) & 0x0000ffff0000ffffu;
  x = (x | x << 8) & 0x00ff00ff00ff00ffu;
  x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fu;
  x = __builtin_bswap64(x);
  uint64_t letters = ((x + 0x0606060606060606u) >> 4) & 0x0101010101010101u;
  x += 0x3030303030303030u + letters * 0x27;
  memcpy(w, &x, 8);
  return w + 8;
}

static inline char *hex16(char *w, uint64_t v) {
  w = hex8(w, (uint32_t)(v >> 32));
  return hex8(w, (uint32_t)v);
}

/* Eight digits of v < 10^8, zero-padded, all at once: v split into two
 * 32-bit lanes of 4 digits, each into two 16-bit lanes of 2, each into two
 * bytes of 1 (a multiply and shift per step divides every lane by 100 or
 * 10, exactly for these ranges). */
static inline void dec8(char *w, uint32_t v) {
  uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
  uint64_t q = ((x * 5243) >> 19) & 0x000000ff000000ffu; /* /100 */
  x = q | (x - q * 100) << 16;
  q = ((x * 103) >> 10) & 0x000f000f000f000fu; /* /10 */
  x = q | (x - q * 10) << 8;
  x += 0x3030303030303030u;
  memcpy(w, &x, 8);
}

/* The decimal digits of v: a Unix time in ns has 19, written as 3 + 8 + 8
 * (constant divisors); shorter or longer values the general way. */
static inline char *dec64(char *w, uint64_t v) {
  if (GQL_LIKELY(v >= 1000000000000000000u)) {
    uint32_t top = (uint32_t)(v / 10000000000000000u); /* 100 to 1844 */
    uint64_t rest = v % 10000000000000000u;
    if (top >= 1000)
      *w++ = (char)('0' + top / 1000);
    *w++ = (char)('0' + top / 100 % 10);
    *w++ = (char)('0' + top / 10 % 10);
    *w++ = (char)('0' + top % 10);
    dec8(w, (uint32_t)(rest / 100000000u));
    dec8(w + 8, (uint32_t)(rest % 100000000u));
    return w + 16;
  }
  char d[24];
  size_t n = sizeof d;
  do
    d[--n] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  memcpy(w, d + n, sizeof d - n);
  return w + (sizeof d - n);
}

/* True when no byte of s needs escaping in JSON: none below 0x20 or above
 * 0x7f, no quote or backslash. */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline bool special16(__m128i v) {
  __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  __m128i bs = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  __m128i lo = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)); /* and >= 0x80 */
  return _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, bs), lo)) != 0;
}

static inline bool plain(gql_str s) {
  const char *p = s.ptr;
  size_t n = s.len;
  for (; n >= 16; p += 16, n -= 16)
    if (special16(_mm_loadu_si128((const __m128i *)(const void *)p)))
      return false;
  if (!n)
    return true;
  char pad[16];
  memset(pad, 'A', 16);
  gql_copy_short(pad, p, n);
  return !special16(_mm_loadu_si128((const __m128i *)(const void *)pad));
}
#else
static inline bool special8(uint64_t x) {
  const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
  uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\');
  uint64_t any = (x - ones * 0x20) | ((q - ones) & ~q) | ((bs - ones) & ~bs);
  return ((any | x) & high) != 0;
}

static bool plain(gql_str s) {
  const char *p = s.ptr;
  size_t n = s.len;
  uint64_t x;
  for (; n >= 8; p += 8, n -= 8) {
    memcpy(&x, p, 8);
    if (special8(x))
      return false;
  }
  if (!n)
    return true;
  x = 0x4141414141414141u; /* 'A's: plain padding */
  memcpy(&x, p, n);
  return !special8(x);
}
#endif

/* A JSON string at w whose plainness is known (room for 6 bytes a byte
 * + 2 reserved): as it is, or through the JSON writer. */
static inline char *wstr_p(gql_buf *b, char *w, gql_str s, bool is_plain) {
  if (GQL_LIKELY(is_plain)) {
    *w++ = '"';
    gql_copy_short(w, s.ptr, s.len);
    w += s.len;
    *w++ = '"';
    return w;
  }
  b->len = (size_t)(w - b->data);
  gql_json_write_string(b, s);
  return b->data + b->len;
}

static inline char *wstr(gql_buf *b, char *w, gql_str s) {
  return wstr_p(b, w, s, plain(s));
}

/* Room at the end of b for n more bytes: the cursor, or NULL. */
static inline char *room(gql_buf *b, size_t n) {
  if (GQL_UNLIKELY(b->cap - b->len < n) && !gql_buf_reserve(b, n))
    return NULL;
  return b->data + b->len;
}

/* The worst case of a string: every byte escaped as \u00XX, the quotes. */
static inline size_t worst(gql_str s) {
  return s.len * 6 + 2;
}

/* {"key":K,"value":{"stringValue":V}} (with a leading comma unless
 * first); room for it reserved. */
static char *kv_at(gql_buf *b, char *w, bool first, gql_str k, gql_str v) {
  w = first ? LIT(w, "{\"key\":") : LIT(w, ",{\"key\":");
  w = wstr(b, w, k);
  w = LIT(w, ",\"value\":{\"stringValue\":");
  w = wstr(b, w, v);
  return LIT(w, "}}");
}

/* A key/value with its own reservation (the extras). */
static bool kv(gql_buf *b, bool first, gql_str k, gql_str v) {
  char *w = room(b, 48 + worst(k) + worst(v));
  if (!w)
    return false;
  b->len = (size_t)(kv_at(b, w, first, k, v) - b->data);
  return true;
}

/* {"key":K,"value":{"arrayValue":{"values":[{"stringValue":..},..]}}} of
 * n strings read from p. */
static void kv_array(gql_buf *b, const char *key, const char *p, uint32_t n) {
  gql_buf_put(b, ",{\"key\":", 8);
  gql_json_write_string(b, gql_cstr(key));
  gql_buf_puts(b, ",\"value\":{\"arrayValue\":{\"values\":[");
  for (uint32_t i = 0; i < n; i++) {
    gql_buf_puts(b, i ? ",{\"stringValue\":" : "{\"stringValue\":");
    gql_json_write_string(b, otlp_getstr(&p));
    gql_buf_putc(b, '}');
  }
  gql_buf_puts(b, "]}}}");
}

/* A time in ns as a decimal string after the literal lit (n bytes): the
 * digits of its second come from the last time written when they are the
 * same (in a batch they mostly are), the nine of the nanoseconds are made. */
static inline __attribute__((always_inline)) char *
time_at(otlp_reader *r, char *w, const char *lit, size_t n, uint64_t ns) {
  memcpy(w, lit, n);
  w += n;
  uint64_t sec = ns / 1000000000u;
  uint32_t sub = (uint32_t)(ns % 1000000000u);
  if (GQL_UNLIKELY(sec != r->sec)) {
    char *e = sec ? dec64(r->sec_digits, sec) : r->sec_digits;
    r->sec_len = (uint32_t)(e - r->sec_digits);
    r->sec = sec;
  }
  if (GQL_UNLIKELY(!sec)) { /* no leading zeros */
    w = dec64(w, sub);
  } else {
    gql_copy_short(w, r->sec_digits, r->sec_len);
    w += r->sec_len;
    *w = (char)('0' + sub / 100000000u);
    dec8(w + 1, sub % 100000000u);
    w += 9;
  }
  *w++ = '"';
  return w;
}

static void event(otlp_reader *r, gql_buf *b, const otlp_event *e) {
  char *w = room(b, 64 + worst(e->name));
  if (!w)
    return;
  w = time_at(r, w, "{\"timeUnixNano\":\"", 17, e->time_ns);
  w = LIT(w, ",\"name\":");
  w = wstr(b, w, e->name);
  w = LIT(w, ",\"attributes\":[");
  b->len = (size_t)(w - b->data);
  kv(b, true, GQL_STR("type"), e->type);
  if (e->nloc)
    kv_array(b, "locations", e->locs, e->nloc);
  if (e->npath)
    kv_array(b, "path", e->path, e->npath);
  kv(b, false, GQL_STR("message"), e->message);
  gql_buf_put(b, "]}", 2);
}

/* The events of a span with extras, the resolver's exception, the status
 * and the end (after its attributes' closing bracket). */
static void tail(otlp_reader *r, gql_buf *b, const otlp_span *s) {
  bool err = s->flags & REC_ERROR, exc = err && s->kind == SPAN_RESOLVE;
  if (s->nevents || exc) {
    gql_buf_puts(b, ",\"events\":[");
    const char *p = s->events;
    for (uint32_t i = 0; i < s->nevents; i++) {
      otlp_event e;
      otlp_event_next(&p, &e);
      if (i)
        gql_buf_putc(b, ',');
      event(r, b, &e);
    }
    if (exc) {
      /* A resolver's error is a thrown exception in OTel terms. */
      char *w = room(b, 64);
      if (!w)
        return;
      if (s->nevents)
        *w++ = ',';
      w = time_at(r, w, "{\"timeUnixNano\":\"", 17, s->end_ns);
      w = LIT(w, ",\"name\":\"exception\",\"attributes\":[");
      b->len = (size_t)(w - b->data);
      kv(b, true, GQL_STR("exception.type"), s->error_type);
      kv(b, false, GQL_STR("exception.message"), s->error);
      gql_buf_put(b, "]}", 2);
    }
    gql_buf_putc(b, ']');
  }
  if (err) {
    gql_buf_puts(b, ",\"status\":{\"code\":2,\"message\":");
    gql_json_write_string(b, s->error);
    gql_buf_putc(b, '}');
  }
}

/* The resource as a JSON string at w: plain names as they are, else
 * through the JSON writer from a copy. */
static char *resource_at(gql_buf *b, char *w, const otlp_span *s,
                         bool names_plain) {
  if (GQL_LIKELY(names_plain)) {
    *w = '"';
    w = gql_otlp_resource(w + 1, s);
    *w++ = '"';
    return w;
  }
  size_t n = gql_otlp_resource_len(s);
  char local[256], *d = n <= sizeof local ? local : malloc(n);
  b->len = (size_t)(w - b->data);
  if (!d) {
    b->failed = true;
    return w;
  }
  gql_json_write_string(b, (gql_str){d, (size_t)(gql_otlp_resource(d, s) - d)});
  if (d != local)
    free(d);
  return b->data + b->len;
}

void gql_otlp_json_span(gql_buf *b, otlp_reader *r, const otlp_span *s,
                        bool first) {
  bool resolve = s->kind == SPAN_RESOLVE;
  gql_str name = s->name, res = s->resource.len ? s->resource : s->name;
  /* the head, the resolve attributes and the fixed ones */
  size_t res_worst = resolve ? gql_otlp_resource_len(s) * 6 + 2 : worst(res);
  size_t need = 768 + worst(r->tracestate) + worst(name) + res_worst;
  if (resolve)
    need += worst(s->fname) + worst(s->path) + worst(s->type);
  char *w = room(b, need);
  if (!w)
    return;
  if (!first)
    *w++ = ',';
  if (GQL_UNLIKELY(!r->hex_ok)) {
    hex16(r->trace_hex, r->trace_hi);
    hex16(r->trace_hex + 16, r->trace_lo);
    r->hex_ok = true;
  }
  w = LIT(w, "{\"traceId\":\"");
  memcpy(w, r->trace_hex, 32);
  w += 32;
  w = LIT(w, "\",\"spanId\":\"");
  w = hex16(w, s->id);
  *w++ = '"';
  if (r->tracestate.len) {
    w = LIT(w, ",\"traceState\":");
    w = wstr(b, w, r->tracestate);
  }
  if (s->parent_id) {
    w = LIT(w, ",\"parentSpanId\":\"");
    w = hex16(w, s->parent_id);
    *w++ = '"';
  }
  w = LIT(w, ",\"name\":");
  w = wstr_p(b, w, name, resolve || plain(name)); /* graphql.resolve */
  w = LIT(w, ",\"kind\":");
  *w++ = (char)('0' + gql_otlp_kind(s->kind));
  w = time_at(r, w, ",\"startTimeUnixNano\":\"", 22, s->start_ns);
  w = time_at(r, w, ",\"endTimeUnixNano\":\"", 20, s->end_ns);
  w = LIT(w, ",\"attributes\":[");
  bool first_attr = true, names_plain = false;
  if (resolve) {
    bool fname_plain = plain(s->fname), type_plain = plain(s->type);
    names_plain = fname_plain && type_plain;
    w = LIT(w, "{\"key\":\"graphql.field.name\",\"value\":{\"stringValue\":");
    w = wstr_p(b, w, s->fname, fname_plain);
    w = LIT(w, "}},{\"key\":\"graphql.field.path\",\"value\":{"
               "\"stringValue\":");
    w = wstr(b, w, s->path);
    w = LIT(w, "}},{\"key\":\"graphql.field.type\",\"value\":{"
               "\"stringValue\":");
    w = wstr_p(b, w, s->type, type_plain);
    w = LIT(w, "}}");
    first_attr = false;
  }
  if (GQL_UNLIKELY(s->nattrs)) {
    b->len = (size_t)(w - b->data);
    const char *p = s->attrs;
    for (uint32_t i = 0; i < s->nattrs; i++, first_attr = false) {
      gql_str k, v;
      otlp_attr_next(&p, &k, &v);
      kv(b, first_attr, k, v);
    }
    /* the rest of the span's room again */
    if (!(w = room(b, 400 + res_worst)))
      return;
  }
  w = first_attr ? LIT(w, "{\"key\":\"resource.name\",\"value\":{"
                          "\"stringValue\":")
                 : LIT(w, ",{\"key\":\"resource.name\",\"value\":{"
                          "\"stringValue\":");
  w = resolve ? resource_at(b, w, s, names_plain) : wstr(b, w, res);
  w = LIT(w, "}},{\"key\":\"span.type\",\"value\":{\"stringValue\":"
             "\"graphql\"}},{\"key\":\"component\",\"value\":{"
             "\"stringValue\":\"graphql\"}}");
  if (GQL_LIKELY(!(s->flags & (REC_ERROR | REC_EVENTS)))) {
    w = LIT(w, "]");
  } else {
    b->len = (size_t)(w - b->data);
    if (s->flags & REC_ERROR)
      kv(b, false, GQL_STR("error.type"), s->error_type);
    gql_buf_putc(b, ']');
    tail(r, b, s);
    if (!(w = room(b, 16)))
      return;
  }
  w = s->remote_parent ? LIT(w, ",\"flags\":769}") : LIT(w, ",\"flags\":257}");
  b->len = (size_t)(w - b->data);
}

void gql_otlp_json_open(gql_buf *b, const char *service) {
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

void gql_otlp_json_close(gql_buf *b) {
  gql_buf_puts(b, "]}]}]}");
}
