/* graphql-sse (see sse.h): routing, the reservation registry and the
 * event stream's bytes. */
#include "sse.h"

#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <uv.h>
#include <xxhash.h>

/* ------------------------------------------------------------ routing */

static bool is_space(char c) {
  return c == ' ' || c == '\t';
}

/* Calls fn on each media range of an Accept value (type/subtype, trimmed,
 * parameters cut) whose q is not 0; true as soon as fn is. */
static bool each_range(gql_str v, bool (*fn)(gql_str range)) {
  size_t i = 0;
  while (i < v.len) {
    size_t j = i;
    while (j < v.len && v.ptr[j] != ',')
      j++;
    gql_str item = {v.ptr + i, j - i};
    const char *semi = memchr(item.ptr, ';', item.len);
    size_t a = 0, b = semi ? (size_t)(semi - item.ptr) : item.len;
    while (a < b && is_space(item.ptr[a]))
      a++;
    while (b > a && is_space(item.ptr[b - 1]))
      b--;
    bool q0 = false;
    for (const char *p = semi; p && p < item.ptr + item.len;) {
      p++;
      while (p < item.ptr + item.len && is_space(*p))
        p++;
      if (p + 2 <= item.ptr + item.len && (p[0] == 'q' || p[0] == 'Q') &&
          p[1] == '=') {
        const char *d = p + 2, *e = item.ptr + item.len;
        q0 = d < e && *d == '0';
        for (d++; q0 && d < e && *d != ';' && !is_space(*d); d++)
          q0 = *d == '.' || *d == '0';
      }
      p = memchr(p, ';', (size_t)(item.ptr + item.len - p));
    }
    if (!q0 && b > a && fn((gql_str){item.ptr + a, b - a}))
      return true;
    i = j + 1;
  }
  return false;
}

static bool range_is(gql_str r, const char *name) {
  size_t n = strlen(name);
  return r.len == n && strncasecmp(r.ptr, name, n) == 0;
}

static bool is_event_stream(gql_str r) {
  return range_is(r, "text/event-stream");
}

static bool is_reserve_ok(gql_str r) {
  return range_is(r, "*/*") || range_is(r, "text/plain") ||
         range_is(r, "text/*");
}

static bool is_json_ok(gql_str r) {
  return range_is(r, "*/*") || range_is(r, "application/*") ||
         range_is(r, "application/json") ||
         range_is(r, "application/graphql-response+json");
}

bool gql_sse_accepts_stream(gql_str accept) {
  return each_range(accept, is_event_stream);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* The decoded value of query parameter `key` of `target` into out (cap
 * bytes, no NUL counted): its length, -1 when absent, -2 when too long or
 * badly escaped. */
static long query_param(gql_str target, const char *key, char *out,
                        size_t cap) {
  if (!target.len)
    return -1;
  const char *q = memchr(target.ptr, '?', target.len);
  if (!q)
    return -1;
  const char *end = target.ptr + target.len;
  size_t kl = strlen(key);
  for (const char *p = q + 1; p < end;) {
    const char *amp = memchr(p, '&', (size_t)(end - p));
    const char *stop = amp ? amp : end;
    const char *eq = memchr(p, '=', (size_t)(stop - p));
    if (eq && (size_t)(eq - p) == kl && memcmp(p, key, kl) == 0) {
      size_t n = 0;
      for (const char *s = eq + 1; s < stop; s++) {
        char c = *s;
        if (c == '+') {
          c = ' ';
        } else if (c == '%') {
          if (stop - s < 3 || hexval(s[1]) < 0 || hexval(s[2]) < 0)
            return -2;
          c = (char)(hexval(s[1]) * 16 + hexval(s[2]));
          s += 2;
        }
        if (n >= cap)
          return -2;
        out[n++] = c;
      }
      out[n] = 0;
      return (long)n;
    }
    p = stop + 1;
  }
  return -1;
}

/* A token is 1 to 128 visible ASCII characters: it is echoed back as text
 * and used as a key, nothing more. */
static bool token_ok(const char *t, size_t n) {
  if (!n || n > GQL_SSE_MAX_TOKEN)
    return false;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)t[i] <= ' ' || (unsigned char)t[i] >= 0x7f)
      return false;
  return true;
}

static void refuse(gql_sse_route *out, int status, const char *message) {
  out->kind = GQL_SSE_REFUSE;
  out->status = status;
  out->message = message;
}

void gql_sse_route_request(const gql_sse_request *rq, gql_sse_route *out) {
  memset(out, 0, sizeof *out);
  bool get = http_str_is(rq->method, "GET");
  bool post = http_str_is(rq->method, "POST");
  bool put = http_str_is(rq->method, "PUT");
  bool del = http_str_is(rq->method, "DELETE");
  /* The token: the header, else the query parameter. */
  if (rq->token.len) {
    if (!token_ok(rq->token.ptr, rq->token.len))
      return refuse(out, 400, "Invalid stream token");
    memcpy(out->token, rq->token.ptr, rq->token.len);
    out->token_len = rq->token.len;
  } else {
    long n = query_param(rq->target, "token", out->token, GQL_SSE_MAX_TOKEN);
    if (n == -2 || (n >= 0 && !token_ok(out->token, (size_t)n)))
      return refuse(out, 400, "Invalid stream token");
    out->token_len = n > 0 ? (size_t)n : 0;
    out->token[out->token_len] = 0;
  }
  bool has_token = out->token_len > 0;
  if ((get || post) && gql_sse_accepts_stream(rq->accept)) {
    out->kind = has_token ? GQL_SSE_CONNECT : GQL_SSE_DISTINCT;
    return;
  }
  if (put) {
    if (rq->accept.len && !each_range(rq->accept, is_reserve_ok))
      return refuse(out, 406, NULL);
    out->kind = GQL_SSE_RESERVE;
    return;
  }
  if (!has_token) { /* plain GraphQL over HTTP */
    out->kind = GQL_SSE_NONE;
    return;
  }
  if (del) {
    long n = query_param(rq->target, "operationId", out->operation_id,
                         GQL_SSE_MAX_ID);
    if (n == -2)
      return refuse(out, 400, "Invalid operation ID");
    out->operation_id_len = n > 0 ? (size_t)n : 0;
    out->operation_id[out->operation_id_len] = 0;
    out->kind = GQL_SSE_STOP;
    return;
  }
  if (!get && !post) {
    refuse(out, 405, NULL);
    out->allow = "GET, POST, PUT, DELETE";
    return;
  }
  if (rq->accept.len && !each_range(rq->accept, is_json_ok))
    return refuse(out, 406, NULL);
  out->kind = GQL_SSE_EXECUTE;
}

/* ------------------------------------------------------------ registry */

typedef struct op_id {
  struct op_id *next;
  void *runner;
  uint32_t len;
  char id[];
} op_id;

typedef struct res {
  struct res *next; /* hash chain */
  uint64_t hash, created;
  bool open;
  void *owner;
  op_id *ops;
  uint32_t nops;
  uint32_t token_len;
  char token[];
} res;

struct gql_sse_registry {
  uv_mutex_t mu;
  gql_sse_limits lim;
  res **buckets;
  size_t nb; /* power of two */
  unsigned count;
  uint64_t seed;
};

gql_sse_registry *gql_sse_registry_new(const gql_sse_limits *limits) {
  gql_sse_registry *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  if (limits)
    r->lim = *limits;
  if (!r->lim.max_streams)
    r->lim.max_streams = 10000;
  if (!r->lim.max_operations)
    r->lim.max_operations = 100;
  if (!r->lim.ttl_ms)
    r->lim.ttl_ms = 30000;
  r->nb = 64;
  while (r->nb < r->lim.max_streams && r->nb < ((size_t)1 << 20))
    r->nb *= 2;
  r->buckets = calloc(r->nb, sizeof *r->buckets);
  if (RAND_bytes((unsigned char *)&r->seed, sizeof r->seed) != 1)
    r->seed = uv_hrtime(); /* never in practice; only spreads buckets */
  if (!r->buckets || uv_mutex_init(&r->mu) != 0) {
    free(r->buckets);
    free(r);
    return NULL;
  }
  return r;
}

static void free_ops(res *s) {
  while (s->ops) {
    op_id *o = s->ops;
    s->ops = o->next;
    free(o);
  }
  s->nops = 0;
}

/* A reservation goes: its owner is dropped. Under the lock. */
static void forget(gql_sse_registry *r, res *s) {
  if (s->owner && r->lim.drop)
    r->lim.drop(s->owner);
  free_ops(s);
  free(s);
}

static void *retained(gql_sse_registry *r, void *owner) {
  if (owner && r->lim.retain)
    r->lim.retain(owner);
  return owner;
}

void gql_sse_registry_free(gql_sse_registry *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->nb; i++)
    while (r->buckets[i]) {
      res *s = r->buckets[i];
      r->buckets[i] = s->next;
      forget(r, s);
    }
  uv_mutex_destroy(&r->mu);
  free(r->buckets);
  free(r);
}

/* The slot that holds (or would hold) `token`. Under the lock. */
static res **find(gql_sse_registry *r, const char *t, size_t n) {
  uint64_t h = XXH3_64bits_withSeed(t, n, r->seed);
  res **pp = &r->buckets[h & (r->nb - 1)];
  while (*pp && !((*pp)->hash == h && (*pp)->token_len == n &&
                  memcmp((*pp)->token, t, n) == 0))
    pp = &(*pp)->next;
  return pp;
}

static gql_sse_result ok(void) {
  return (gql_sse_result){0, NULL};
}

static gql_sse_result fail(int status, const char *message) {
  return (gql_sse_result){status, message};
}

/* A UUID v4 from OpenSSL's generator, as graphql-sse makes its tokens. */
static bool fresh_token(gql_sse_route *rt) {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1)
    return false;
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
  static const char hex[] = "0123456789abcdef";
  size_t n = 0;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      rt->token[n++] = '-';
    rt->token[n++] = hex[b[i] >> 4];
    rt->token[n++] = hex[b[i] & 15];
  }
  rt->token[n] = 0;
  rt->token_len = n;
  return true;
}

gql_sse_result gql_sse_registry_reserve(gql_sse_registry *r, gql_sse_route *rt,
                                        uint64_t now_ms) {
  return gql_sse_registry_reserve_for(r, rt, now_ms, NULL);
}

bool gql_sse_registry_has(gql_sse_registry *r, gql_str token) {
  uv_mutex_lock(&r->mu);
  bool has = *find(r, token.ptr, token.len) != NULL;
  uv_mutex_unlock(&r->mu);
  return has;
}

gql_sse_result gql_sse_registry_reserve_for(gql_sse_registry *r,
                                            gql_sse_route *rt, uint64_t now_ms,
                                            void *owner) {
  gql_sse_result out = ok();
  uv_mutex_lock(&r->mu);
  res **pp = NULL;
  if (!rt->token_len) {
    /* 122 random bits: a collision means a broken generator. */
    if (!fresh_token(rt) || *(pp = find(r, rt->token, rt->token_len)))
      out = fail(500, "Cannot make a stream token");
  } else if (*(pp = find(r, rt->token, rt->token_len))) {
    out = fail(409, "Stream already registered");
  }
  if (!out.status && r->count >= r->lim.max_streams)
    out = fail(503, "Too many event streams");
  if (!out.status) {
    res *s = calloc(1, sizeof *s + rt->token_len + 1);
    if (!s) {
      out = fail(503, "Out of memory");
    } else {
      s->hash = XXH3_64bits_withSeed(rt->token, rt->token_len, r->seed);
      s->created = now_ms;
      s->owner = owner;
      s->token_len = (uint32_t)rt->token_len;
      memcpy(s->token, rt->token, rt->token_len);
      *pp = s;
      r->count++;
    }
  }
  uv_mutex_unlock(&r->mu);
  return out;
}

gql_sse_result gql_sse_registry_open(gql_sse_registry *r, gql_sse_route *rt,
                                     void *owner) {
  gql_sse_result out = ok();
  uv_mutex_lock(&r->mu);
  res *s = *find(r, rt->token, rt->token_len);
  if (!s)
    rt->kind = GQL_SSE_DISTINCT; /* graphql-sse: no reservation, no stream */
  else if (s->open)
    out = fail(409, "Stream already open");
  else {
    s->open = true;
    s->owner = owner;
  }
  uv_mutex_unlock(&r->mu);
  return out;
}

gql_sse_result gql_sse_registry_open_owned(gql_sse_registry *r,
                                           gql_sse_route *rt, void **owner) {
  gql_sse_result out = ok();
  *owner = NULL;
  uv_mutex_lock(&r->mu);
  res *s = *find(r, rt->token, rt->token_len);
  if (!s)
    rt->kind = GQL_SSE_DISTINCT;
  else if (s->open)
    out = fail(409, "Stream already open");
  else {
    s->open = true;
    *owner = retained(r, s->owner);
  }
  uv_mutex_unlock(&r->mu);
  return out;
}

static op_id **find_op(res *s, gql_str id) {
  op_id **pp = &s->ops;
  while (*pp &&
         !((*pp)->len == id.len && memcmp((*pp)->id, id.ptr, id.len) == 0))
    pp = &(*pp)->next;
  return pp;
}

gql_sse_result gql_sse_registry_add(gql_sse_registry *r,
                                    const gql_sse_route *rt, gql_str id,
                                    void **owner) {
  return gql_sse_registry_add_run(r, rt, id, NULL, owner);
}

gql_sse_result gql_sse_registry_add_run(gql_sse_registry *r,
                                        const gql_sse_route *rt, gql_str id,
                                        void *runner, void **owner) {
  *owner = NULL;
  if (!id.len)
    return fail(400, "Operation ID is missing");
  if (id.len > GQL_SSE_MAX_ID)
    return fail(400, "Invalid operation ID");
  gql_sse_result out = ok();
  uv_mutex_lock(&r->mu);
  res *s = *find(r, rt->token, rt->token_len);
  op_id **pp;
  op_id *o;
  if (!s)
    out = fail(404, "Stream not found");
  else if (*(pp = find_op(s, id)))
    out = fail(409, "Operation with ID already exists");
  else if (s->nops >= r->lim.max_operations)
    out = fail(409, "Too many operations on this stream");
  else if (!(o = malloc(sizeof *o + id.len)))
    out = fail(503, "Out of memory");
  else {
    o->next = NULL;
    o->runner = runner;
    o->len = (uint32_t)id.len;
    memcpy(o->id, id.ptr, id.len);
    *pp = o;
    s->nops++;
    *owner = retained(r, s->owner);
  }
  uv_mutex_unlock(&r->mu);
  return out;
}

gql_sse_result gql_sse_registry_stop(gql_sse_registry *r,
                                     const gql_sse_route *rt, void **owner) {
  void *runner;
  return gql_sse_registry_stop_run(r, rt, owner, &runner);
}

gql_sse_result gql_sse_registry_stop_run(gql_sse_registry *r,
                                         const gql_sse_route *rt, void **owner,
                                         void **runner) {
  *owner = *runner = NULL;
  gql_sse_result out = ok();
  uv_mutex_lock(&r->mu);
  res *s = *find(r, rt->token, rt->token_len);
  if (!s) {
    out = fail(404, "Stream not found");
  } else if (!rt->operation_id_len) {
    out = fail(400, "Operation ID is missing");
  } else {
    op_id **pp = find_op(s, (gql_str){rt->operation_id, rt->operation_id_len});
    if (*pp) {
      op_id *o = *pp;
      *pp = o->next;
      *runner = o->runner;
      free(o);
      s->nops--;
    }
    *owner = retained(r, s->owner);
  }
  uv_mutex_unlock(&r->mu);
  return out;
}

void gql_sse_registry_done(gql_sse_registry *r, gql_str token, gql_str id) {
  uv_mutex_lock(&r->mu);
  res *s = *find(r, token.ptr, token.len);
  op_id **pp;
  if (s && *(pp = find_op(s, id))) {
    op_id *o = *pp;
    *pp = o->next;
    free(o);
    s->nops--;
  }
  uv_mutex_unlock(&r->mu);
}

void gql_sse_registry_close(gql_sse_registry *r, gql_str token) {
  uv_mutex_lock(&r->mu);
  res **pp = find(r, token.ptr, token.len);
  res *s = *pp;
  if (s) {
    *pp = s->next;
    forget(r, s);
    r->count--;
  }
  uv_mutex_unlock(&r->mu);
}

unsigned gql_sse_registry_expire(gql_sse_registry *r, uint64_t now_ms) {
  unsigned n = 0;
  uv_mutex_lock(&r->mu);
  for (size_t i = 0; i < r->nb; i++)
    for (res **pp = &r->buckets[i]; *pp;) {
      res *s = *pp;
      if (!s->open && now_ms - s->created >= r->lim.ttl_ms) {
        *pp = s->next;
        forget(r, s);
        r->count--;
        n++;
      } else {
        pp = &s->next;
      }
    }
  uv_mutex_unlock(&r->mu);
  return n;
}

unsigned gql_sse_registry_count(gql_sse_registry *r) {
  uv_mutex_lock(&r->mu);
  unsigned n = r->count;
  uv_mutex_unlock(&r->mu);
  return n;
}

/* ------------------------------------------------------------ the stream */

void gql_sse_write_head(http_buf *out) {
  http_buf_puts(out, "HTTP/1.1 200 OK\r\n"
                     "Content-Type: text/event-stream; charset=utf-8\r\n"
                     "Cache-Control: no-cache\r\n"
                     "Connection: keep-alive\r\n"
                     "X-Accel-Buffering: no\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n");
  gql_sse_write_ping(out); /* some browsers wait for a first byte */
}

/* Chunk framing: the size goes in a fixed eight-digit slot (leading zeros
 * are valid chunk-size digits) filled once the chunk is written. */
static size_t chunk_open(http_buf *out) {
  http_buf_puts(out, "00000000\r\n");
  return out->o.len;
}

static void chunk_close(http_buf *out, size_t start) {
  if (out->failed)
    return;
  size_t n = out->o.len - start;
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < 8; i++)
    out->o.data[start - 3 - i] = hex[(n >> (4 * i)) & 15];
  http_buf_puts(out, "\r\n");
}

void gql_sse_write_next(http_buf *out, gql_str id, bool with_id,
                        const char *json, size_t len) {
  size_t c = chunk_open(out);
  http_buf_puts(out, "event: next\ndata: ");
  if (with_id) {
    http_buf_puts(out, "{\"id\":");
    http_buf_json_string(out, id);
    http_buf_puts(out, ",\"payload\":");
  }
  http_buf_append(out, json, len);
  if (with_id)
    http_buf_putc(out, '}');
  http_buf_puts(out, "\n\n");
  chunk_close(out, c);
}

void gql_sse_write_complete(http_buf *out, gql_str id, bool with_id) {
  size_t c = chunk_open(out);
  http_buf_puts(out, "event: complete\ndata:");
  if (with_id) {
    http_buf_puts(out, " {\"id\":");
    http_buf_json_string(out, id);
    http_buf_putc(out, '}');
  }
  http_buf_puts(out, "\n\n");
  chunk_close(out, c);
}

void gql_sse_write_ping(http_buf *out) {
  size_t c = chunk_open(out);
  http_buf_puts(out, ":\n\n");
  chunk_close(out, c);
}

void gql_sse_write_end(http_buf *out) {
  http_buf_puts(out, "0\r\n\r\n");
}
