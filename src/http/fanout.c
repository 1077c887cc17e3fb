/* Shared execution of subscription events (see fanout.h).
 *
 * A group is found by its key: the document cache entry (which is per
 * generation, document and operation name) and the variables as printed
 * JSON, in a chained hash table of the worker. Its subscription's
 * callbacks walk the members: an event's response is split into the
 * pieces every member's frame shares (`next","payload":`, the response,
 * `}`), so the per-member work is a frame header and two copies into the
 * connection's output. */
#include "fanout.h"

#include <stdlib.h>

struct gql_http_fan {
  gql_http_fans *f;
  gql_http_fan *hnext;
  uint64_t hash;
  gql_http_cache_entry *entry; /* held */
  gql_http_pin *pin;           /* held */
  gql_subscription *sub;
  gql_http_fan_member *head;
  uint32_t members;
  unsigned depth;   /* inside the subscription's callbacks or gql_subscribe */
  uint64_t dropped; /* the subscription's queue drops counted so far */
  bool ended;       /* its subscription ended: no more members */
  bool hashed;
  /* The context the group's executions see: a request of no connection
   * (the worker's state only). */
  gql_http_conn conn;
  gql_http_request req;
  gql_http_slot slot;
  size_t vars_len;
  char vars[]; /* the variables as JSON text ("" for none) */
};

struct gql_http_fans {
  gql_http_ctx *x;
  const gql_http_fan_calls *calls;
  gql_http_fan **buckets;
  size_t nbuckets; /* power of two */
  uint32_t groups, members;
  uint64_t executions;
  uint64_t seed;
};

gql_http_fans *gql_http_fans_new(gql_http_ctx *x,
                                 const gql_http_fan_calls *calls) {
  gql_http_fans *f = calloc(1, sizeof *f);
  if (!f)
    return NULL;
  f->nbuckets = 64;
  f->buckets = calloc(f->nbuckets, sizeof *f->buckets);
  if (!f->buckets) {
    free(f);
    return NULL;
  }
  f->x = x;
  f->calls = calls;
  f->seed = x->seed;
  return f;
}

void gql_http_fans_free(gql_http_fans *f) {
  if (!f)
    return;
  free(f->buckets);
  free(f);
}

void gql_http_fans_stats_get(const gql_http_fans *f, gql_http_fans_stats *st) {
  *st = (gql_http_fans_stats){
      .groups = f->groups, .members = f->members, .executions = f->executions};
}

bool gql_http_fan_allowed(const gql_http_ctx *x, const gql_http_request *sock) {
  return x->opt->subscription.shared_execution && !sock->user && !sock->claims;
}

/* ------------------------------------------------------------ the table */

static uint64_t key_hash(const gql_http_fans *f, const gql_http_cache_entry *e,
                         const char *vars, size_t len) {
  /* FNV-1a, seeded per server (the http part sees libgql's public API
   * only); the key is short and hashed once per subscribe */
  uint64_t h = 0xcbf29ce484222325u ^ f->seed;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)vars[i]) * 0x100000001b3u;
  return h ^ ((uint64_t)(uintptr_t)e * 0x9e3779b97f4a7c15u);
}

static gql_http_fan **bucket(gql_http_fans *f, uint64_t hash) {
  return &f->buckets[hash & (f->nbuckets - 1)];
}

static void grow(gql_http_fans *f) {
  size_t n = f->nbuckets * 2;
  gql_http_fan **b = calloc(n, sizeof *b);
  if (!b)
    return; /* longer chains, still correct */
  for (size_t i = 0; i < f->nbuckets; i++)
    for (gql_http_fan *g = f->buckets[i], *next; g; g = next) {
      next = g->hnext;
      g->hnext = b[g->hash & (n - 1)];
      b[g->hash & (n - 1)] = g;
    }
  free(f->buckets);
  f->buckets = b;
  f->nbuckets = n;
}

static void unhash(gql_http_fan *g) {
  if (!g->hashed)
    return;
  g->hashed = false;
  for (gql_http_fan **p = bucket(g->f, g->hash); *p; p = &(*p)->hnext)
    if (*p == g) {
      *p = g->hnext;
      break;
    }
  g->f->groups--;
}

static gql_http_fan *find(gql_http_fans *f, uint64_t hash,
                          const gql_http_cache_entry *e, const char *vars,
                          size_t len) {
  for (gql_http_fan *g = *bucket(f, hash); g; g = g->hnext)
    if (g->hash == hash && g->entry == e && g->vars_len == len &&
        memcmp(g->vars, vars, len) == 0 && !g->ended)
      return g;
  return NULL;
}

/* ------------------------------------------------------------ a group */

static void destroy(gql_http_fan *g) {
  unhash(g);
  gql_subscription_free(g->sub); /* its source's cancel is called */
  gql_http_cache_release(g->entry);
  gql_http_pin_release(g->pin); /* after the entry: the pin owns its cache */
  gql_arena_free(g->slot.arena);
  gql_output_free(&g->slot.output);
  free(g);
}

/* Frees the group once nothing runs inside it and nobody is in it. */
static void settle(gql_http_fan *g) {
  if (g->depth == 0 && g->members == 0)
    destroy(g);
}

static void detach(gql_http_fan_member *m) {
  gql_http_fan *g = m->fan;
  if (m->prev)
    m->prev->next = m->next;
  else
    g->head = m->next;
  if (m->next)
    m->next->prev = m->prev;
  m->fan = NULL;
  m->prev = m->next = NULL;
  g->members--;
  g->f->members--;
}

static void on_event(void *ud, const char *json, size_t len, bool has_errors) {
  (void)has_errors;
  gql_http_fan *g = ud;
  static const char next[] = "next\",\"payload\":";
  gql_str tail[3] = {{next, sizeof next - 1}, {json, len}, {"}", 1}};
  g->f->executions++;
  g->depth++;
  /* a member's next only writes into its connection's output: nobody
   * leaves during the walk */
  int64_t sent = 0, lost = 0;
  for (gql_http_fan_member *m = g->head; m; m = m->next) {
    int r = g->f->calls->next(m, tail, 3);
    sent += r > 0;
    lost += r < 0;
  }
  /* events the queue dropped (while an execution pended) were lost for
   * every member */
  uint64_t d = gql_subscription_dropped(g->sub);
  lost += (int64_t)(d - g->dropped) * g->members;
  g->dropped = d;
  const gql_http_ctx *x = g->f->x;
  gql_http_ws_counted(x, GQL_HTTP_WS_EXECUTIONS, 1);
  gql_http_ws_counted(x, GQL_HTTP_WS_EVENTS, sent);
  gql_http_ws_counted(x, GQL_HTTP_WS_DROPPED, lost);
  g->depth--;
  settle(g);
}

static void on_end(void *ud, const char *errors, size_t len) {
  gql_http_fan *g = ud;
  g->ended = true;
  unhash(g); /* later subscribers start a new group */
  g->depth++;
  while (g->head) {
    gql_http_fan_member *m = g->head;
    detach(m);
    g->f->calls->end(m, errors, len);
  }
  g->depth--;
  settle(g);
}

static gql_http_fan *make(gql_http_fans *f, uint64_t hash,
                          gql_http_cache_entry *e, gql_http_pin *pin,
                          const char *vars, size_t len) {
  gql_http_fan *g = calloc(1, sizeof *g + len + 1);
  if (!g)
    return NULL;
  g->f = f;
  g->hash = hash;
  g->entry = e;
  e->refs++;
  g->pin = pin;
  pin->refs++;
  memcpy(g->vars, vars, len);
  g->vars_len = len;
  g->conn.x = f->x;
  g->conn.gone = true; /* no socket behind it */
  g->req = (gql_http_request){.conn = &g->conn,
                              .slot = &g->slot,
                              .method = "GET",
                              .socket = true,
                              .op_type = -1,
                              .cache = -1};
  if (f->groups + 1 > f->nbuckets)
    grow(f);
  g->hnext = *bucket(f, hash);
  *bucket(f, hash) = g;
  g->hashed = true;
  f->groups++;
  return g;
}

int gql_http_fan_join(gql_http_fans *f, gql_http_cache_entry *entry,
                      gql_http_pin *pin, const gql_value *variables,
                      gql_http_fan_member *m) {
  gql_arena *a = NULL;
  gql_str text = {"", 0};
  if (variables) {
    if (!(a = gql_arena_new(NULL)) ||
        gql_value_print(a, variables, &text) < 0) {
      gql_arena_free(a);
      return GQL_ENOMEM;
    }
  }
  uint64_t hash = key_hash(f, entry, text.ptr, text.len);
  gql_http_fan *g = find(f, hash, entry, text.ptr, text.len);
  bool fresh = !g;
  if (fresh && !(g = make(f, hash, entry, pin, text.ptr, text.len))) {
    gql_arena_free(a);
    return GQL_ENOMEM;
  }
  gql_arena_free(a);
  m->fan = g;
  m->prev = NULL;
  m->next = g->head;
  if (g->head)
    g->head->prev = m;
  g->head = m;
  g->members++;
  f->members++;
  if (!fresh)
    return 0;
  const gql_http_ctx *x = f->x;
  gql_subscribe_params sp = {.variables_json = g->vars_len ? g->vars : NULL,
                             .variables_len = g->vars_len,
                             .root_value = pin->gen->g.root_value,
                             .context = &g->req,
                             .on_event = on_event,
                             .on_end = on_end,
                             .ud = g,
                             .max_queue = x->opt->subscription.queue_capacity,
                             .tracer = x->opt->tracer,
                             .trace_options = x->opt->trace_options};
  g->depth++;
  int rc = gql_subscribe(entry->prepared, &sp, &g->sub);
  g->depth--;
  if (rc < 0) {
    if (m->fan == g)
      detach(m);
    g->ended = true;
    settle(g);
    return rc;
  }
  settle(g); /* it ended at once and its members are gone */
  return 0;
}

void gql_http_fan_leave(gql_http_fan_member *m) {
  gql_http_fan *g = m->fan;
  if (!g)
    return;
  detach(m);
  settle(g);
}
