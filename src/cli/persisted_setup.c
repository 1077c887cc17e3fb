/* Persisted operations for gql serve and gql gateway: the flags, and the
 * server's documents hook on src/pubsub (the decision in persisted.c, the
 * manifests, and per worker thread an APQ store on the worker's Redis
 * client, shared with the subscription events: redis_share.c). On a
 * reload the manifests, the safelist and log_unknown follow the request's
 * generation (gql_cli_live.persisted); APQ and its store stay as started. */
#include "cli.h"
#include "pubsub/persisted.h"

#include <stdlib.h>

struct gql_cli_persisted {
  gql_http_documents documents;
  gql_pq_config cfg;
  gql_pq_manifest *manifest;
  gql_cli_redis *redis; /* NULL: no Redis */
  uint32_t redis_timeout_ms;
  bool log_unknown;
  const gql_http_options *http; /* its log settings, read when logging */
};

typedef struct pq_worker {
  gql_cli_persisted *p;
  gql_redis *redis; /* NULL: no Redis (or closing) */
  gql_pq_store *store;
} pq_worker;

/* A request's decision, kept until its store lookup answers. */
typedef struct pq_pending {
  pq_worker *w;
  const gql_cli_persisted *p; /* the settings it is decided under */
  gql_http_request *r;
  gql_http_document *d;
  gql_pq_decision dec;
} pq_pending;

int gql_cli_persisted_flag(const char *cmd, gql_settings *st, int argc,
                           char **argv, int *i) {
  const char *a = argv[*i];
  gql_cfg_persisted *p = &st->persisted;
  if (strcmp(a, "--apq") == 0) {
    p->apq = true;
    return 1;
  }
  if (strcmp(a, "--safelist") == 0) {
    p->enabled = p->safelist = true;
    return 1;
  }
  if (strcmp(a, "--safelist-require-id") == 0) {
    p->enabled = p->safelist = p->require_id = true;
    return 1;
  }
  static const char *const with_value[] = {"--persisted-queries", "--redis",
                                           "--redis-timeout"};
  const char *v;
  int taken = gql_cli_take_value(cmd, argc, argv, i, with_value,
                                 GQL_ARRAY_LEN(with_value), &v);
  if (taken <= 0)
    return taken;
  if (strcmp(a, "--persisted-queries") == 0) {
    /* each use adds a manifest (Router's local_manifests) */
    gql_cfg_strs *m = &p->local_manifests;
    const char **items =
        gql_arena_alloc(st->arena, sizeof *items * (m->count + 2));
    if (!items)
      return -1;
    if (m->count)
      memcpy(items, m->items, sizeof *items * m->count);
    items[m->count] = v;
    *m = (gql_cfg_strs){items, m->count + 1, true};
    p->enabled = true;
  } else if (strcmp(a, "--redis") == 0) {
    st->redis_url = v;
  } else {
    unsigned long long ms;
    if (!gql_cli_parse_num(cmd, a, v, 60000, &ms) || !ms)
      return -1;
    st->redis_timeout_ms = ms;
  }
  return 1;
}

/* The manifests as one: a plain {"id": "body"} map of them all. */
static gql_pq_manifest *load_manifests(const char *cmd,
                                       const gql_cfg_strs *paths) {
  gql_buf all;
  gql_buf_init(&all, NULL);
  gql_buf_putc(&all, '{');
  bool ok = true, first = true;
  for (uint32_t i = 0; i < paths->count && ok; i++) {
    size_t len;
    char *text = gql_cli_read_file_as(cmd, paths->items[i], &len);
    gql_pq_manifest *m = NULL;
    char err[256] = "";
    if (!text) {
      ok = false;
    } else if (gql_pq_manifest_parse(text, len, NULL, &m, err, sizeof err) <
               0) {
      fprintf(stderr, "%s: %s: %s\n", cmd, paths->items[i], err);
      ok = false;
    }
    for (uint32_t k = 0; ok && k < gql_pq_manifest_count(m); k++) {
      gql_str id, body;
      gql_pq_manifest_op(m, k, &id, &body);
      if (!first)
        gql_buf_putc(&all, ',');
      first = false;
      gql_json_write_string(&all, id);
      gql_buf_putc(&all, ':');
      gql_json_write_string(&all, body);
    }
    gql_pq_manifest_free(m);
    free(text);
  }
  gql_buf_putc(&all, '}');
  gql_pq_manifest *out = NULL;
  char err[256] = "";
  if (ok && gql_pq_manifest_parse(all.data, all.len, NULL, &out, err,
                                  sizeof err) < 0) {
    fprintf(stderr, "%s: persisted queries: %s\n", cmd, err);
    out = NULL;
  }
  gql_buf_free(&all);
  return out;
}

/* ------------------------------------------------------ the hook */

static void *worker_start(void *ud, uv_loop_t *loop) {
  gql_cli_persisted *p = ud;
  pq_worker *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->p = p;
  if (p->redis && !(w->redis = gql_cli_redis_take(p->redis, loop, true))) {
    free(w);
    return NULL;
  }
  gql_pq_store_options so = {.lookup_timeout_ms = p->redis_timeout_ms};
  if (p->cfg.apq && gql_pq_store_new(w->redis, &so, &w->store) < 0) {
    gql_cli_redis_give(p->redis, w->redis);
    uv_run(loop, UV_RUN_NOWAIT);
    free(w);
    return NULL;
  }
  return w;
}

/* The server stops: lookups in flight are answered "not found", and the
 * Redis connection closes so that the loop can end. */
static void worker_stop(void *worker) {
  pq_worker *w = worker;
  gql_pq_store_free(w->store);
  w->store = NULL;
  gql_cli_redis_give(w->p->redis, w->redis); /* the last one closes it */
  w->redis = NULL;
}

static void worker_free(void *worker) {
  pq_worker *w = worker;
  worker_stop(w);
  free(w);
}

/* The decision as the server takes it. */
static int answer(const gql_cli_persisted *p, gql_http_request *r,
                  gql_http_document *d, gql_pq_decision *dec) {
  if (dec->action == GQL_PQ_RUN || dec->action == GQL_PQ_NO_QUERY) {
    d->has_query = dec->action == GQL_PQ_RUN;
    d->query = dec->query;
    d->state = dec;
    return GQL_HTTP_DOC_RUN;
  }
  if (p->log_unknown && (dec->error == GQL_PQ_ENOT_IN_LIST ||
                         dec->error == GQL_PQ_ENOT_IN_SAFELIST))
    gql_cli_log(p->http, GQL_HTTP_LOG_WARN, "persisted queries: %s (%s)",
                gql_pq_error_code(dec->error), dec->message);
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_pq_error_json(dec, &b);
  gql_arena *a = gql_http_request_arena(r);
  char *body = b.data ? gql_arena_alloc(a, b.len) : NULL;
  if (body)
    memcpy(body, b.data, b.len);
  d->body = body;
  d->body_len = body ? b.len : 0;
  gql_buf_free(&b);
  d->status = gql_pq_error_status(dec->error);
  d->no_cache = gql_pq_error_no_cache(dec->error);
  return GQL_HTTP_DOC_ERROR;
}

static void on_lookup(void *ud, bool found, gql_str text) {
  pq_pending *pp = ud;
  gql_arena *a = gql_http_request_arena(pp->r);
  gql_str copy = {0};
  if (found) {
    char *t = gql_arena_alloc(a, text.len + 1);
    if (t) {
      memcpy(t, text.ptr, text.len);
      t[text.len] = 0;
      copy = (gql_str){t, text.len};
    }
    found = t != NULL;
  }
  gql_pq_found(&pp->dec, found, copy, a);
  gql_http_document_done(pp->d, answer(pp->p, pp->r, pp->d, &pp->dec));
}

/* The settings of the request's generation (hot reload), else the
 * start's. */
static const gql_cli_persisted *settings_of(const pq_worker *w,
                                            const gql_http_request *r) {
  void *gen = gql_http_request_generation(r);
  const gql_cli_live *l = gen ? gql_cli_generation_live(gen) : NULL;
  return l && l->persisted ? l->persisted : w->p;
}

static int decide(void *worker, gql_http_request *r, gql_http_document *d) {
  pq_worker *w = worker;
  const gql_cli_persisted *p = settings_of(w, r);
  gql_arena *a = gql_http_request_arena(r);
  pq_pending *pp = gql_arena_alloc(a, sizeof *pp);
  if (!pp)
    return GQL_HTTP_DOC_ERROR; /* no body: the server answers 500 */
  *pp = (pq_pending){.w = w, .p = p, .r = r, .d = d};
  gql_pq_request req = {.has_query = d->has_query,
                        .query = d->query,
                        .has_document_id = d->has_document_id,
                        .document_id = d->document_id,
                        .extensions = d->extensions};
  if (gql_pq_decide(&p->cfg, &req, a, &pp->dec) < 0)
    return GQL_HTTP_DOC_ERROR;
  if (pp->dec.action != GQL_PQ_LOOKUP)
    return answer(p, r, d, &pp->dec);
  gql_str text = {0};
  int rc = w->store ? gql_pq_store_get(w->store, pp->dec.key, a, &text,
                                       on_lookup, pp)
                    : GQL_PQ_MISS;
  if (rc == GQL_PQ_PENDING)
    return GQL_HTTP_DOC_PENDING;
  gql_pq_found(&pp->dec, rc == GQL_PQ_HIT, text, a);
  return answer(p, r, d, &pp->dec);
}

/* An APQ registration is kept once its operation validated. */
static void validated(void *worker, gql_http_request *r, gql_http_document *d) {
  (void)r;
  pq_worker *w = worker;
  const gql_pq_decision *dec = d->state;
  if (dec && dec->register_apq && w->store)
    gql_pq_store_put(w->store, dec->key, dec->query);
}

bool gql_cli_persisted_init(const char *cmd, const gql_settings *st,
                            gql_cli_redis *redis, gql_cli_persisted **out,
                            gql_http_options *o) {
  *out = NULL;
  const gql_cfg_persisted *c = &st->persisted;
  if (!c->apq && !c->enabled)
    return true; /* the server does no work for them */
  if ((c->safelist || c->require_id) && c->apq) {
    /* Router refuses this too: a safelist would let any registered APQ
     * through. */
    fprintf(stderr,
            "%s: apq cannot be enabled together with the persisted "
            "queries safelist\n",
            cmd);
    return false;
  }
  gql_cli_persisted *p = calloc(1, sizeof *p);
  if (!p) {
    fprintf(stderr, "%s: out of memory\n", cmd);
    return false;
  }
  if (c->enabled && c->local_manifests.count &&
      !(p->manifest = load_manifests(cmd, &c->local_manifests))) {
    free(p);
    return false;
  }
  p->cfg = (gql_pq_config){.apq = c->apq,
                           .manifest = p->manifest,
                           .safelist =
                               !c->enabled || !c->safelist ? GQL_PQ_SAFELIST_OFF
                               : c->require_id ? GQL_PQ_SAFELIST_REQUIRE_ID
                                               : GQL_PQ_SAFELIST_ON};
  p->redis = c->apq ? redis : NULL; /* its URL was checked */
  p->redis_timeout_ms = (uint32_t)st->redis_timeout_ms;
  p->log_unknown = c->log_unknown;
  p->http = o;
  p->documents = (gql_http_documents){.ud = p,
                                      .worker_start = worker_start,
                                      .worker_stop = worker_stop,
                                      .worker_free = worker_free,
                                      .decide = decide,
                                      .validated = validated};
  o->documents = &p->documents;
  *out = p;
  return true;
}

gql_cli_persisted *gql_cli_persisted_reload(const char *cmd,
                                            const gql_settings *st,
                                            const gql_cli_persisted *first) {
  const gql_cfg_persisted *c = &st->persisted;
  if (first->cfg.apq && (c->safelist || c->require_id) && c->enabled) {
    fprintf(stderr,
            "%s: apq cannot be enabled together with the persisted "
            "queries safelist\n",
            cmd);
    return NULL;
  }
  gql_cli_persisted *p = calloc(1, sizeof *p);
  if (!p) {
    fprintf(stderr, "%s: out of memory\n", cmd);
    return NULL;
  }
  if (c->enabled && c->local_manifests.count &&
      !(p->manifest = load_manifests(cmd, &c->local_manifests))) {
    free(p);
    return NULL;
  }
  p->cfg = (gql_pq_config){.apq = first->cfg.apq, /* its store: the start's */
                           .manifest = p->manifest,
                           .safelist =
                               !c->enabled || !c->safelist ? GQL_PQ_SAFELIST_OFF
                               : c->require_id ? GQL_PQ_SAFELIST_REQUIRE_ID
                                               : GQL_PQ_SAFELIST_ON};
  p->log_unknown = c->log_unknown;
  p->http = first->http;
  return p;
}

void gql_cli_persisted_free(gql_cli_persisted *p) {
  if (!p)
    return;
  gql_pq_manifest_free(p->manifest);
  free(p);
}
