/* Reading span records back (the format: otlp_records.h) and a batch of
 * them into one OTLP/HTTP request body, JSON or protobuf. Every length,
 * code and parent index of a record is checked before it is used: a
 * malformed record ends the batch (not sent) rather than the process. */
#include "otlp_batch.h"

#include <stdlib.h>
#include <string.h>

/* What the reader keeps of each span of the trace for its children. */
typedef struct span_info {
  uint32_t path_off, path_len;
  uint8_t kind;
} span_info;

void gql_otlp_reader_init(otlp_reader *r, otlp_to_ns_fn to_ns,
                          const void *ctx) {
  *r = (otlp_reader){.to_ns = to_ns, .ctx = ctx, .sec = UINT64_MAX};
  gql_buf_init(&r->paths, NULL);
  gql_buf_init(&r->info, NULL);
}

void gql_otlp_reader_free(otlp_reader *r) {
  gql_buf_free(&r->paths);
  gql_buf_free(&r->info);
}

void gql_otlp_reader_chunk(otlp_reader *r, const char *rec, size_t len) {
  r->p = rec;
  r->end = rec + len;
  r->nspans = r->next = 0;
}

static uint64_t get64(otlp_reader *r) {
  uint64_t v = 0;
  if (GQL_UNLIKELY(r->end - r->p < 8)) {
    r->bad = true;
    return 0;
  }
  memcpy(&v, r->p, 8);
  r->p += 8;
  return v;
}

static uint32_t get32(otlp_reader *r) {
  uint32_t v = 0;
  if (GQL_UNLIKELY(r->end - r->p < 4)) {
    r->bad = true;
    return 0;
  }
  memcpy(&v, r->p, 4);
  r->p += 4;
  return v;
}

/* A pointer the request thread wrote (a pinned image); NULL (r->bad set)
 * when the record is short or the pointer NULL. */
static const char *getptr(otlp_reader *r) {
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

static gql_str getstr(otlp_reader *r) {
  uint32_t n = get32(r);
  if (GQL_UNLIKELY(n & KNOWN_BIT) && !r->bad) {
    n &= ~KNOWN_BIT;
    if (n < K_NKNOWN)
      return gql_otlp_known[n];
    r->bad = true;
    return GQL_STR("");
  }
  if (GQL_UNLIKELY(r->bad || (size_t)(r->end - r->p) < n)) {
    r->bad = true;
    return GQL_STR("");
  }
  gql_str s = {r->p, n};
  r->p += n;
  return s;
}

/* A counted list of strings, skipped (checked). */
static void skip_strs(otlp_reader *r) {
  uint32_t n = get32(r);
  if (r->bad || n > (size_t)(r->end - r->p) / 4) {
    r->bad = true;
    return;
  }
  for (uint32_t i = 0; i < n && !r->bad; i++)
    getstr(r);
}

/* The extras the flags announce: checked and skipped, their start kept
 * for the writers (otlp_attr_next, otlp_event_next). */
static void read_extras(otlp_reader *r, otlp_span *s) {
  if (s->flags & REC_ATTRS) {
    s->nattrs = get32(r);
    s->attrs = r->p;
    if (s->nattrs > (size_t)(r->end - r->p) / 8)
      r->bad = true;
    for (uint32_t i = 0; i < s->nattrs && !r->bad; i++) {
      getstr(r);
      getstr(r);
    }
  }
  if (s->flags & REC_ERROR) {
    s->error_type = getstr(r);
    s->error = getstr(r);
  }
  if (s->flags & REC_EVENTS) {
    s->nevents = get32(r);
    s->events = r->p;
    if (s->nevents > (size_t)(r->end - r->p) / 28)
      r->bad = true;
    for (uint32_t i = 0; i < s->nevents && !r->bad; i++) {
      get64(r);
      getstr(r);
      getstr(r);
      getstr(r);
      skip_strs(r);
      skip_strs(r);
    }
  }
}

static bool trace_header(otlp_reader *r) {
  r->trace_hi = get64(r);
  r->trace_lo = get64(r);
  r->base = get64(r);
  uint32_t n = get32(r);
  r->remote_parent = 0;
  r->tracestate = GQL_STR("");
  if (n & TRACE_REMOTE) {
    n &= ~TRACE_REMOTE;
    r->remote_parent = get64(r);
    r->tracestate = getstr(r);
  }
  /* 24: a span's least */
  if (r->bad || n > (size_t)(r->end - r->p) / 24) {
    r->bad = true;
    return false;
  }
  r->nspans = n;
  r->next = 0;
  r->hex_ok = false;
  r->paths.len = 0;
  r->info.len = 0;
  if (!gql_buf_reserve(&r->info, sizeof(span_info) * (n + 1))) {
    r->bad = true;
    return false;
  }
  return true;
}

/* A relative path into r->paths: the parent's (when a resolve span) +
 * ".*" per list level + "." + key. */
static gql_str path_of(otlp_reader *r, const span_info *pp, uint32_t lists,
                       gql_str key, uint32_t *off) {
  if (lists > 1000000) {
    r->bad = true;
    return GQL_STR("");
  }
  size_t plen = pp ? pp->path_len : 0;
  size_t n = plen + (size_t)lists * 2 + (plen ? 1 : 0) + key.len;
  if (GQL_UNLIKELY(r->paths.cap - r->paths.len < n + 16) &&
      !gql_buf_reserve(&r->paths, n + 16)) {
    r->bad = true;
    return GQL_STR("");
  }
  *off = (uint32_t)r->paths.len;
  char *d = r->paths.data + r->paths.len, *w = d;
  if (plen) {
    gql_copy_short(w, r->paths.data + pp->path_off, plen);
    w += plen;
  }
  for (uint32_t i = 0; i < lists; i++, w += 2)
    memcpy(w, ".*", 2);
  if (plen)
    *w++ = '.';
  gql_copy_short(w, key.ptr, key.len);
  r->paths.len += n;
  return (gql_str){d, n};
}

/* A resolve span's part: from the record, or from the pinned image it
 * points to. */
static void read_resolve(otlp_reader *r, otlp_span *s, uint32_t parent,
                         span_info *info) {
  otlp_reader blob, *q = r;
  if (s->flags & REC_BLOB_REF) {
    const char *ptr = getptr(r);
    if (!ptr)
      return;
    uint32_t n;
    memcpy(&n, ptr, 4);
    blob = (otlp_reader){.p = ptr + 4, .end = ptr + 4 + n};
    q = &blob;
  }
  uint32_t lists = get32(q);
  s->fname = getstr(q);
  s->type = getstr(q);
  s->mods = getstr(q);
  if (s->flags & REC_RELATIVE) {
    gql_str key = s->flags & REC_KEY_IS_NAME ? s->fname : getstr(q);
    r->bad |= q->bad;
    if (r->bad)
      return;
    const span_info *pp = NULL;
    if (parent) {
      const span_info *all = (const span_info *)(const void *)r->info.data;
      if (all[parent - 1].kind == SPAN_RESOLVE)
        pp = &all[parent - 1];
    }
    uint32_t off = 0;
    s->path = path_of(r, pp, lists, key, &off);
    info->path_off = off;
    info->path_len = (uint32_t)s->path.len;
    return;
  }
  s->path = getstr(q);
  r->bad |= q->bad;
  if (r->bad)
    return;
  /* a whole path is kept for the children that may be relative to it */
  uint32_t off = (uint32_t)r->paths.len;
  gql_buf_append(&r->paths, s->path.ptr, s->path.len);
  r->bad |= r->paths.failed;
  info->path_off = off;
  info->path_len = (uint32_t)s->path.len;
}

bool gql_otlp_reader_next(otlp_reader *r, otlp_span *s) {
  if (r->bad)
    return false;
  while (r->next == r->nspans) { /* the next trace */
    if (r->p >= r->end || !trace_header(r))
      return false;
  }
  uint32_t idx = r->next++;
  uint32_t head = get32(r), parent = get32(r);
  uint64_t start = get64(r), end = get64(r);
  if (r->bad || parent > idx) { /* parents come first */
    r->bad = true;
    return false;
  }
  s->kind = (uint8_t)(head & 0xff);
  s->flags = head >> 8;
  s->idx = idx;
  s->start_ns = r->to_ns(r->ctx, start);
  s->end_ns = r->to_ns(r->ctx, end);
  if (s->end_ns < s->start_ns) /* (the records' ends are >= their starts) */
    s->end_ns = s->start_ns;
  s->id = gql_trace_span_id(r->base, idx);
  s->parent_id = parent ? gql_trace_span_id(r->base, parent - 1) : 0;
  s->remote_parent = !parent && r->remote_parent;
  if (s->remote_parent)
    s->parent_id = r->remote_parent;
  s->nattrs = s->nevents = 0;
  s->attrs = s->events = NULL;
  span_info *info = (span_info *)(void *)r->info.data + idx;
  *info = (span_info){.kind = s->kind};
  if (s->kind == SPAN_RESOLVE) {
    s->name = gql_otlp_known[K_RESOLVE];
    s->resource = GQL_STR("");
    read_resolve(r, s, parent, info);
  } else {
    s->fname = s->type = s->mods = s->path = GQL_STR("");
    s->name = getstr(r);
    if (s->flags & REC_RES_PINNED) {
      const char *ptr = getptr(r);
      s->resource = (gql_str){ptr, get32(r)};
      if (!ptr)
        s->resource.len = 0;
    } else {
      s->resource = getstr(r);
    }
  }
  if (GQL_UNLIKELY(s->flags & (REC_ATTRS | REC_ERROR | REC_EVENTS)) && !r->bad)
    read_extras(r, s);
  return !r->bad;
}

/* ---- batches */

void gql_otlp_batch_begin(otlp_batch *ob, gql_buf *b, const char *service,
                          gql_otlp_protocol protocol, otlp_to_ns_fn to_ns,
                          const void *ctx) {
  *ob = (otlp_batch){.b = b, .service = service, .protocol = protocol};
  gql_otlp_reader_init(&ob->r, to_ns, ctx);
  b->len = 0;
  if (protocol == GQL_OTLP_HTTP_PROTOBUF)
    gql_otlp_proto_open(b, service, &ob->spans_at);
  else
    gql_otlp_json_open(b, service);
}

int gql_otlp_batch_add(otlp_batch *ob, const char *rec, size_t len) {
  otlp_span s;
  gql_otlp_reader_chunk(&ob->r, rec, len);
  if (ob->protocol == GQL_OTLP_HTTP_PROTOBUF) {
    while (gql_otlp_reader_next(&ob->r, &s))
      gql_otlp_proto_span(ob->b, &ob->r, &s);
  } else {
    while (gql_otlp_reader_next(&ob->r, &s)) {
      gql_otlp_json_span(ob->b, &ob->r, &s, !ob->any);
      ob->any = true;
    }
  }
  return ob->r.bad ? GQL_EINVAL : 0;
}

gql_str gql_otlp_batch_end(otlp_batch *ob) {
  gql_buf *b = ob->b;
  size_t at = 0;
  if (ob->protocol == GQL_OTLP_HTTP_PROTOBUF)
    at = gql_otlp_proto_close(b, ob->service, ob->spans_at);
  else
    gql_otlp_json_close(b);
  bool bad = ob->r.bad || b->failed;
  gql_otlp_reader_free(&ob->r);
  if (bad)
    return (gql_str){NULL, 0};
  return (gql_str){b->data + at, b->len - at};
}
