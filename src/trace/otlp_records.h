/* The span records a request thread hands to the exporter (written by
 * records.c), read back on the exporter thread (otlp_batch.c) and written as
 * OTLP JSON (otlp_json.c) or protobuf (otlp_proto.c), one span at a time
 * and straight from the records: no arena, no list, nothing copied but
 * the resolve spans' paths. */
#ifndef GQL_OTLP_RECORDS_H
#define GQL_OTLP_RECORDS_H

#include "trace.h"

/* ---- the format */

/* Strings every span repeats go into a record as a code (the length word
 * with the top bit set), not as bytes: gql_otlp_known[code]. */
extern const gql_str gql_otlp_known[];
enum { K_RESOLVE, K_FIELD_NAME, K_FIELD_PATH, K_FIELD_TYPE, K_NKNOWN = 17 };
#define KNOWN_BIT 0x80000000u

/* A trace's records: a header (trace id, span id base, span count, and
 * when the trace continues a remote one, its parent span id and
 * tracestate), then each span: kind and flags, parent (index + 1, 0:
 * none), start, end; for a resolve span the list levels above it, field
 * name, type name, wrappers and either the whole path or (REC_RELATIVE)
 * the key, its path being the parent's (when a resolve span) + ".*" per
 * list level + "." + key; for another its name and resource; then what the
 * flags say. */
enum {
  REC_ATTRS = 1,
  REC_ERROR = 2,
  REC_EVENTS = 4,
  REC_RELATIVE = 8,
  REC_KEY_IS_NAME = 16,
  REC_RES_PINNED = 32, /* resource: a pointer and length, not bytes */
  REC_BLOB_REF = 64    /* a resolve span's part: a pointer to its pinned
                        * image (a length, then the bytes) */
};
/* The trace header: 28 bytes, then (when the count word's top bit is
 * set, TRACE_REMOTE) the remote parent span id and the tracestate. */
enum { TRACE_HEAD = 28 };
#define TRACE_REMOTE 0x80000000u

/* ---- reading */

/* Ticks to Unix nanoseconds (the exporter's clock). */
typedef uint64_t (*otlp_to_ns_fn)(const void *ctx, uint64_t tick);

/* One trace's spans as they are read: the trace's ids, the resolve spans'
 * paths so far (for their children), a cursor. Paths live in `paths`
 * (offsets, since it grows), the per-span facts in `info`. */
typedef struct otlp_reader {
  const char *p, *end;
  otlp_to_ns_fn to_ns;
  const void *ctx;
  bool bad;
  /* the current trace */
  uint64_t trace_hi, trace_lo, base;
  uint64_t remote_parent; /* 0: none */
  gql_str tracestate;
  uint32_t nspans, next;
  gql_buf paths; /* path bytes of the trace's resolve spans */
  gql_buf info;  /* span_info per span of the trace */
  /* the JSON writer's: the trace id in hex (made once per trace), the
   * digits of the last Unix second written (times within a batch share
   * it) */
  bool hex_ok;
  char trace_hex[32];
  uint64_t sec;
  uint32_t sec_len;
  char sec_digits[24];
} otlp_reader;

/* What one span's record says, slices into the records, the pinned images
 * or the reader's paths (valid until the next span is read). */
typedef struct otlp_span {
  uint8_t kind;
  uint32_t flags; /* REC_* */
  uint32_t idx;
  uint64_t id, parent_id;    /* parent_id 0: none */
  bool remote_parent;        /* the parent is the remote one */
  uint64_t start_ns, end_ns; /* end >= start */
  /* a resolve span: the field's name, its type, the type's wrappers
   * (gql_type_ref.mods, outside in) and the path */
  gql_str fname, type, mods, path;
  /* another span: its name and resource (empty: the name) */
  gql_str name, resource;
  /* the extras, checked: read them with otlp_attr_next / otlp_event_next */
  const char *attrs;
  uint32_t nattrs;
  gql_str error_type, error; /* flags & REC_ERROR */
  const char *events;
  uint32_t nevents;
} otlp_span;

void gql_otlp_reader_init(otlp_reader *r, otlp_to_ns_fn to_ns, const void *ctx);
void gql_otlp_reader_free(otlp_reader *r);
/* Starts reading a chunk of records (one or more traces). */
void gql_otlp_reader_chunk(otlp_reader *r, const char *rec, size_t len);
/* The next span of the chunk into *s: true, or false at its end or on a
 * malformed record (r->bad). */
bool gql_otlp_reader_next(otlp_reader *r, otlp_span *s);

/* The extras were checked by the reader: these read them unchecked. */
static inline uint32_t otlp_get32(const char **p) {
  uint32_t v;
  memcpy(&v, *p, 4);
  *p += 4;
  return v;
}
static inline uint64_t otlp_get64(const char **p) {
  uint64_t v;
  memcpy(&v, *p, 8);
  *p += 8;
  return v;
}
static inline gql_str otlp_getstr(const char **p) {
  uint32_t n = otlp_get32(p);
  if (n & KNOWN_BIT)
    return gql_otlp_known[n & ~KNOWN_BIT];
  gql_str s = {*p, n};
  *p += n;
  return s;
}
/* An attribute: key and string value. */
static inline void otlp_attr_next(const char **p, gql_str *key,
                                  gql_str *value) {
  *key = otlp_getstr(p);
  *value = otlp_getstr(p);
}
/* An event; its locations and path are read with otlp_getstr, nloc then
 * npath of them, from *locs and *path. */
typedef struct otlp_event {
  uint64_t time_ns;
  gql_str name, type, message;
  uint32_t nloc, npath;
  const char *locs, *path;
} otlp_event;
static inline void otlp_event_next(const char **p, otlp_event *e) {
  e->time_ns = otlp_get64(p);
  e->name = otlp_getstr(p);
  e->type = otlp_getstr(p);
  e->message = otlp_getstr(p);
  e->nloc = otlp_get32(p);
  e->locs = *p;
  for (uint32_t i = 0; i < e->nloc; i++)
    otlp_getstr(p);
  e->npath = otlp_get32(p);
  e->path = *p;
  for (uint32_t i = 0; i < e->npath; i++)
    otlp_getstr(p);
}

/* ---- writing */

/* A resolve span's resource, "field:[Type!]!": its length (a list
 * wrapper is two bytes, a non-null one), and its bytes at d. */
static inline size_t gql_otlp_resource_len(const otlp_span *s) {
  size_t n = s->fname.len + 1 + s->type.len;
  for (size_t i = 0; i < s->mods.len; i++)
    n += s->mods.ptr[i] == 'L' ? 2 : 1;
  return n;
}
static inline char *gql_otlp_resource(char *d, const otlp_span *s) {
  gql_copy_short(d, s->fname.ptr, s->fname.len);
  d += s->fname.len;
  *d++ = ':';
  for (size_t i = 0; i < s->mods.len; i++)
    if (s->mods.ptr[i] == 'L')
      *d++ = '[';
  gql_copy_short(d, s->type.ptr, s->type.len);
  d += s->type.len;
  for (size_t i = s->mods.len; i-- > 0;)
    *d++ = s->mods.ptr[i] == 'L' ? ']' : '!';
  return d;
}

/* otlp_json.c */
void gql_otlp_json_open(gql_buf *b, const char *service);
void gql_otlp_json_span(gql_buf *b, otlp_reader *r, const otlp_span *s,
                        bool first);
void gql_otlp_json_close(gql_buf *b);

/* otlp_proto.c: the envelope's two lengths depend on what follows, so the
 * envelope is written last, in front of the spans (room for it is left
 * when the batch opens): gql_otlp_proto_close returns where the request
 * starts in b. */
void gql_otlp_proto_open(gql_buf *b, const char *service, size_t *spans_at);
void gql_otlp_proto_span(gql_buf *b, const otlp_reader *r, const otlp_span *s);
size_t gql_otlp_proto_close(gql_buf *b, const char *service, size_t spans_at);

#endif
