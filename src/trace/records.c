/* The span records a request thread hands to the exporter (the format:
 * otlp_records.h): flat copies, lengths and bytes, no formatting; they
 * become OTLP on the exporter thread (otlp_batch.c). */
#include "otlp_records.h"

#include <string.h>

#define K(s)                                                                   \
  { s, sizeof s - 1 }
const gql_str gql_otlp_known[] = {K("graphql.resolve"),
                                  K("graphql.field.name"),
                                  K("graphql.field.path"),
                                  K("graphql.field.type"),
                                  K("graphql.parse"),
                                  K("graphql.validate"),
                                  K("graphql.operation.type"),
                                  K("graphql.operation.name"),
                                  K("graphql.source"),
                                  K("graphql.document"),
                                  K("GraphQLError"),
                                  K("Error"),
                                  K("query"),
                                  K("mutation"),
                                  K("subscription"),
                                  K("dd.graphql.query.error"),
                                  K("")};
#undef K
_Static_assert(sizeof gql_otlp_known / sizeof gql_otlp_known[0] == K_NKNOWN,
               "K_NKNOWN is the number of known strings");

static inline void app(gql_buf *b, const void *p, size_t n) {
  if (n)
    gql_buf_put(b, p, n);
}
static inline void put64(gql_buf *b, uint64_t v) {
  app(b, &v, sizeof v);
}
static inline void put32(gql_buf *b, uint32_t v) {
  app(b, &v, sizeof v);
}
static inline void putstr(gql_buf *b, gql_str s) {
  put32(b, (uint32_t)s.len);
  app(b, s.ptr, s.len);
}
static inline void putknown(gql_buf *b, uint32_t k) {
  put32(b, KNOWN_BIT | k);
}
/* A string, as a code when it is one of gql_otlp_known (the empty one
 * included: its first byte is not read). */
static void putname(gql_buf *b, gql_str s) {
  for (uint32_t k = 0; k < K_NKNOWN; k++)
    if (s.len == gql_otlp_known[k].len &&
        (s.ptr == gql_otlp_known[k].ptr || /* a literal the linker merged */
         s.len == 0 ||
         (s.ptr[0] == gql_otlp_known[k].ptr[0] &&
          memcmp(s.ptr, gql_otlp_known[k].ptr, s.len) == 0))) {
      putknown(b, k);
      return;
    }
  putstr(b, s);
}

/* Writing at a cursor into reserved room (no capacity check per item). */
static inline char *w64(char *w, uint64_t v) {
  memcpy(w, &v, 8);
  return w + 8;
}
static inline char *w32(char *w, uint32_t v) {
  memcpy(w, &v, 4);
  return w + 4;
}
static inline char *wstr(char *w, gql_str s) {
  w = w32(w, (uint32_t)s.len);
  if (s.len)
    gql_copy_short(w, s.ptr, s.len);
  return w + s.len;
}

void gql_otlp_trace_header(gql_buf *b, const otlp_ids *ids, uint64_t id_base,
                           uint32_t nspans) {
  bool remote = ids->remote_parent != 0;
  size_t n = TRACE_HEAD + (remote ? 12 + ids->tracestate.len : 0);
  if (!gql_buf_reserve(b, n))
    return;
  char *w = b->data + b->len;
  w = w64(w, ids->trace_hi);
  w = w64(w, ids->trace_lo);
  w = w64(w, id_base);
  w = w32(w, nspans | (remote ? TRACE_REMOTE : 0));
  if (remote) {
    w = w64(w, ids->remote_parent);
    w = w32(w, (uint32_t)ids->tracestate.len);
    memcpy(w, ids->tracestate.ptr, ids->tracestate.len);
    w += ids->tracestate.len;
  }
  b->len = (size_t)(w - b->data);
}

void gql_otlp_trace_header_count(gql_buf *b, uint32_t nspans) {
  if (b->len >= TRACE_HEAD && !b->failed) {
    uint32_t old;
    memcpy(&old, b->data + 24, 4);
    nspans |= old & TRACE_REMOTE;
    memcpy(b->data + 24, &nspans, 4);
  }
}

void gql_otlp_record_plan(gql_buf *b, const trace_span *s, uint32_t parent,
                          gql_str name, gql_str type, gql_str mods) {
  gql_str key = s->key;
  bool same = s->key_is_name; /* (the tracer compared them once) */
  size_t need = 48 + name.len + type.len + mods.len + (same ? 0 : key.len);
  if (GQL_UNLIKELY(b->cap - b->len < need) && !gql_buf_reserve(b, need))
    return;
  char *w = b->data + b->len;
  uint32_t flags = REC_RELATIVE | (same ? REC_KEY_IS_NAME : 0);
  w = w32(w, SPAN_RESOLVE | flags << 8);
  w = w32(w, parent);
  w = w64(w, s->start);
  w = w64(w, s->end > s->start ? s->end : s->start);
  w = w32(w, s->lists);
  w = wstr(w, name);
  w = wstr(w, type);
  w = wstr(w, mods);
  if (!same)
    w = wstr(w, key);
  b->len = (size_t)(w - b->data);
}

size_t gql_otlp_plan_blob(char *w, bool key_is_name, uint32_t lists,
                          gql_str name, gql_str type, gql_str mods,
                          gql_str key) {
  size_t n = 4 + 4 + 4 + name.len + 4 + type.len + 4 + mods.len +
             (key_is_name ? 0 : 4 + key.len);
  if (!w)
    return n;
  uint32_t flags = REC_RELATIVE | (key_is_name ? REC_KEY_IS_NAME : 0);
  w = w32(w, SPAN_RESOLVE | flags << 8);
  w = w32(w, lists);
  w = wstr(w, name);
  w = wstr(w, type);
  w = wstr(w, mods);
  if (!key_is_name)
    wstr(w, key);
  return n;
}

void gql_otlp_record_blob(gql_buf *b, const char *blob, size_t n,
                          uint32_t parent, uint64_t start, uint64_t end) {
  size_t need = n + 20 + 16; /* 16: the last copy's slack */
  if (GQL_UNLIKELY(b->cap - b->len < need) && !gql_buf_reserve(b, need))
    return;
  char *w = b->data + b->len;
  memcpy(w, blob, 4); /* kind and flags */
  w = w32(w + 4, parent);
  w = w64(w, start);
  w = w64(w, end > start ? end : start);
  /* lists, name, type, mods, key: 16 bytes a move (the blob is readable
   * that far past its end) */
  for (size_t i = 4; i < n; i += 16)
    memcpy(w + i - 4, blob + i, 16);
  b->len = (size_t)(w + (n - 4) - b->data);
}

uint32_t gql_otlp_ref_head(uint32_t head) {
  return head | (uint32_t)REC_BLOB_REF << 8;
}

void gql_otlp_record_ref(gql_buf *b, uint32_t head, const char *ref,
                         uint32_t parent, uint64_t start, uint64_t end) {
  if (GQL_UNLIKELY(b->cap - b->len < OTLP_REF_RECORD) &&
      !gql_buf_reserve(b, OTLP_REF_RECORD))
    return;
  char *w = gql_otlp_put_ref(b->data + b->len, gql_otlp_ref_head(head), ref,
                             parent, start, end);
  b->len = (size_t)(w - b->data);
}

void gql_otlp_record_tail(gql_buf *b, uint32_t head, uint32_t parent,
                          uint64_t start, uint64_t end, const char *tail,
                          size_t n) {
  if (GQL_UNLIKELY(b->cap - b->len < n + OTLP_RECORD_HEAD) &&
      !gql_buf_reserve(b, n + OTLP_RECORD_HEAD))
    return;
  char *w = b->data + b->len;
  w = w32(w, head);
  w = w32(w, parent);
  w = w64(w, start);
  w = w64(w, end > start ? end : start);
  memcpy(w, tail, n);
  b->len = (size_t)(w + n - b->data);
}

/* The flags beyond a resolve span's own (attributes, error, events). */
static uint32_t extra_flags(const trace_span *s) {
  return (s->attrs ? REC_ATTRS : 0) | (s->error_type ? REC_ERROR : 0) |
         (s->events ? REC_EVENTS : 0);
}

/* What extra_flags announced. */
static void put_extras(gql_buf *b, const trace_span *s) {
  if (s->attrs) {
    uint32_t n = 0;
    for (const trace_attr *a = s->attrs; a; a = a->next)
      n++;
    put32(b, n);
    for (const trace_attr *a = s->attrs; a; a = a->next) {
      putname(b, a->key);
      putstr(b, a->value);
    }
  }
  if (s->error_type) {
    putname(b, gql_cstr(s->error_type));
    putstr(b, s->error);
  }
  if (!s->events)
    return;
  uint32_t n = 0;
  for (const trace_event *e = s->events; e; e = e->next)
    n++;
  put32(b, n);
  for (const trace_event *e = s->events; e; e = e->next) {
    put64(b, e->time_ns);
    putname(b, gql_cstr(e->name));
    putname(b, e->type);
    putstr(b, e->message);
    put32(b, e->nlocations);
    for (uint32_t i = 0; i < e->nlocations; i++)
      putstr(b, e->locations[i]);
    put32(b, e->npath);
    for (uint32_t i = 0; i < e->npath; i++)
      putstr(b, e->path[i]);
  }
}

void gql_otlp_record(gql_buf *b, const trace_span *s, uint32_t parent,
                     const otlp_resolve *r) {
  otlp_resolve none;
  if (s->kind == SPAN_RESOLVE && !r) { /* the reader expects a resolve part */
    none = (otlp_resolve){.path = s->path};
    r = &none;
  }
  uint32_t flags = extra_flags(s);
  size_t need = 64 + s->name.len + s->resource.len;
  if (r) {
    need += r->name.len + r->type.len + r->mods.len + r->key.len + r->path.len;
    if (r->relative) {
      flags |= REC_RELATIVE;
      /* an unaliased field's key is the schema's name (the same slice) */
      if ((r->key.ptr == r->name.ptr && r->key.len == r->name.len) ||
          gql_str_eq(r->key, r->name))
        flags |= REC_KEY_IS_NAME;
    }
  } else if (s->resource_pinned) {
    flags |= REC_RES_PINNED;
  }
  if (GQL_UNLIKELY(b->cap - b->len < need) && !gql_buf_reserve(b, need))
    return;
  char *w = b->data + b->len;
  w = w32(w, s->kind | flags << 8);
  w = w32(w, parent);
  w = w64(w, s->start);
  w = w64(w, s->end > s->start ? s->end : s->start);
  if (r) {
    w = w32(w, r->lists);
    w = wstr(w, r->name);
    w = wstr(w, r->type);
    w = wstr(w, r->mods);
    if (!(flags & REC_RELATIVE))
      w = wstr(w, r->path);
    else if (!(flags & REC_KEY_IS_NAME))
      w = wstr(w, r->key);
  } else {
    b->len = (size_t)(w - b->data);
    putname(b, s->name); /* within the room reserved */
    w = b->data + b->len;
    if (flags & REC_RES_PINNED) { /* the tracer's, alive while it is */
      uintptr_t ptr = (uintptr_t)s->resource.ptr;
      memcpy(w, &ptr, sizeof ptr);
      w = w32(w + sizeof ptr, (uint32_t)s->resource.len);
    } else {
      w = wstr(w, s->resource);
    }
  }
  b->len = (size_t)(w - b->data);
  if (GQL_UNLIKELY(flags & (REC_ATTRS | REC_ERROR | REC_EVENTS)))
    put_extras(b, s);
}
