/* The request hooks of gql serve and gql gateway (gql_http_hooks): CORS as
 * the `cors` section says, answered before routing (a preflight gets 204
 * and runs nothing); and JWT authentication as
 * authentication.router.jwt says, before a GraphQL operation runs:
 * optional by default, as in Apollo Router (no token passes
 * unauthenticated; a token that fails verification is refused), required
 * with authorization.require_authentication. A refusal is 401 with a
 * GraphQL error body and WWW-Authenticate (RFC 6750), and no log line: a
 * client's bad token is not the server's error. The verified claims are
 * the request's claims (gql_http_request_claims: for resolvers, the
 * gateway's header rules and authorization directives) and its context
 * (the gql_jwt_result).
 *
 * The settings are the request's generation's (gql_cli_live_of: hot
 * reload changes them for new requests, a request in flight keeps its
 * own). Each worker has its own CORS matcher and token cache (no locks),
 * made again when its requests reach a newer generation (the cache then
 * starts empty: a token verified under the old keys is not trusted under
 * the new ones); the verifier is shared read-only. */
#include "cli.h"

#include "auth/auth.h"
#include "config/cors.h"
#include "gql_http.h"
#include "pubsub/redis.h"

#include <stdlib.h>
#include <time.h>

typedef struct hooks_worker {
  const gql_cli_hooks *h;
  uint64_t serial; /* of the live settings below are for (0: none yet) */
  gql_cors *cors;
  gql_jwt_cache *cache;
} hooks_worker;

static void *worker_start(void *ud) {
  hooks_worker *w = calloc(1, sizeof *w);
  if (w)
    w->h = ud;
  return w;
}

static void worker_free(void *ud, void *wp) {
  (void)ud;
  hooks_worker *w = wp;
  gql_cors_free(w->cors);
  gql_jwt_cache_free(w->cache);
  free(w);
}

/* The worker's matcher and cache for `l`, made again when `l` is newer
 * than the ones it has. false when `l` is older (a request that started
 * before the worker moved on: it goes without them) or out of memory. */
static bool worker_for(hooks_worker *w, const gql_cli_live *l) {
  if (l->serial == w->serial)
    return true;
  if (l->serial < w->serial)
    return false;
  gql_cors *cors = NULL;
  gql_jwt_cache *cache = NULL;
  char why[256];
  if ((l->st->cors.set &&
       gql_cors_build(&l->st->cors, &cors, why, sizeof why) < 0) ||
      (l->verifier && !(cache = gql_jwt_cache_new(0)))) {
    gql_cors_free(cors);
    return false;
  }
  gql_cors_free(w->cors);
  gql_jwt_cache_free(w->cache);
  *w = (hooks_worker){
      .h = w->h, .serial = l->serial, .cors = cors, .cache = cache};
  return true;
}

/* Adds a header whose name and value are slices. */
static void add_header(gql_http_request *r, gql_str name, gql_str value) {
  char n[128], v[1024];
  if (name.len >= sizeof n || value.len >= sizeof v)
    return;
  memcpy(n, name.ptr, name.len);
  n[name.len] = 0;
  memcpy(v, value.ptr, value.len);
  v[value.len] = 0;
  gql_http_request_add_header(r, n, v);
}

static void on_request(void *wp, gql_http_request *r) {
  hooks_worker *w = wp;
  const gql_cli_live *l = gql_cli_live_of(w->h, r);
  if (!l->st->cors.set)
    return;
  gql_cors *cors = NULL, *own = NULL;
  if (worker_for(w, l))
    cors = w->cors;
  else if (gql_cors_build(&l->st->cors, &own, NULL, 0) == 0)
    cors = own; /* an older generation's request: a matcher for it alone */
  if (!cors) {
    gql_http_request_reject(r, 503, "Out of memory.", NULL);
    return;
  }
  gql_cors_request rq = {.method = gql_http_request_method(r),
                         .origin = gql_http_request_header(r, "origin"),
                         .request_method = gql_http_request_header(
                             r, "access-control-request-method"),
                         .request_headers = gql_http_request_header(
                             r, "access-control-request-headers")};
  gql_cors_answer a;
  gql_cors_decide(cors, &rq, &a);
  for (uint32_t i = 0; i < a.nheaders; i++)
    add_header(r, a.headers[i].name, a.headers[i].value);
  gql_cors_free(own);
  /* a preflight runs nothing; one from an origin not allowed gets no
   * Access-Control-* header, which the browser takes as a refusal */
  if (a.kind == GQL_CORS_PREFLIGHT)
    gql_http_request_answer(r, 204, NULL, NULL, 0);
}

/* 401 with WWW-Authenticate: Bearer, and the reason for a bad token. */
static void refuse(gql_http_request *r, const char *message,
                   const char *reason) {
  char v[256];
  if (reason)
    snprintf(v, sizeof v,
             "Bearer error=\"invalid_token\", error_description=\"%s\"",
             reason);
  gql_http_request_add_header(r, "WWW-Authenticate", reason ? v : "Bearer");
  gql_http_request_reject(r, 401, message, "AUTH_ERROR");
}

static void on_execute(void *wp, gql_http_request *r) {
  hooks_worker *w = wp;
  const gql_cli_live *h = gql_cli_live_of(w->h, r);
  if (!h->verifier) {
    if (h->require)
      refuse(r, "The request is not authenticated.", NULL);
    return;
  }
  /* an older generation's request verifies without the worker's cache */
  gql_jwt_cache *cache = worker_for(w, h) ? w->cache : NULL;
  const gql_cfg_jwt *jwt = &h->st->jwt;
  gql_str value = gql_http_request_header(
      r, jwt->header_name ? jwt->header_name : "authorization");
  gql_str token = {0};
  int found = value.ptr ? gql_jwt_from_header(value,
                                              jwt->header_value_prefix
                                                  ? jwt->header_value_prefix
                                                  : "Bearer",
                                              &token)
                        : 0;
  if (found == 0 && value.ptr && !jwt->ignore_other_prefixes &&
      !jwt->on_error_continue) {
    refuse(r, "Invalid JWT: the header does not start with the prefix.",
           "malformed");
    return;
  }
  if (found < 0 && !jwt->on_error_continue) {
    refuse(r, "Invalid JWT: the header has no token.", "malformed");
    return;
  }
  if (found <= 0) {
    if (h->require)
      refuse(r, "The request is not authenticated.", NULL);
    return;
  }
  gql_arena *arena = gql_http_request_arena(r);
  gql_jwt_result *res = gql_arena_alloc(arena, sizeof *res);
  if (!res) {
    gql_http_request_reject(r, 503, "Out of memory.", NULL);
    return;
  }
  gql_jwt_verify(h->verifier, cache, token.ptr, token.len, (int64_t)time(NULL),
                 arena, res);
  if (res->status == GQL_JWT_OK) {
    gql_http_request_set_context(r, res);
    gql_http_request_set_claims(r, res->claims);
    return;
  }
  if (res->status == GQL_JWT_NOMEM) {
    gql_http_request_reject(r, 503, "Out of memory.", NULL);
    return;
  }
  if (jwt->on_error_continue) { /* Router's on_error: Continue */
    if (h->require)
      refuse(r, "The request is not authenticated.", NULL);
    return;
  }
  char msg[128];
  const char *why = gql_jwt_status_text(res->status);
  snprintf(msg, sizeof msg, "Invalid JWT: %s.", why);
  refuse(r, msg, why);
}

static const char *admit(void *ud, gql_http_request *r, const gql_prepared *p,
                         const gql_value *variables, size_t *len) {
  gql_cli_hooks *h = ud;
  const gql_cli_live *l = gql_cli_live_of(h, r);
  return l->dc ? gql_cli_demand_control_admit(l->dc, &h->cost, r, p, variables,
                                              len)
               : NULL;
}

bool gql_cli_hooks_init(const char *cmd, const gql_settings *st,
                        gql_cli_hooks *h, gql_http_options *o) {
  *h = (gql_cli_hooks){0};
  gql_cli_cost_report_init(&h->cost, o);
  if (!(h->first = gql_cli_live_new(cmd, st, NULL, 1))) {
    gql_cli_cost_report_free(&h->cost);
    return false;
  }
  if (st->redis_url) { /* a bad URL stops the start, not the first worker */
    gql_redis_url u;
    char err[256];
    if (gql_redis_url_parse(st->redis_url, &u, err, sizeof err) < 0) {
      fprintf(stderr, "%s: --redis '%s': %s\n", cmd, st->redis_url, err);
      gql_cli_hooks_free(h);
      return false;
    }
    h->redis = gql_cli_redis_new(st->redis_url, (uint32_t)st->redis_timeout_ms);
    if (!h->redis) {
      fprintf(stderr, "%s: out of memory\n", cmd);
      gql_cli_hooks_free(h);
      return false;
    }
  }
  if (!gql_cli_persisted_init(cmd, st, h->redis, &h->persisted, o) ||
      !gql_cli_graphiql_init(cmd, st, &h->graphiql, o)) {
    gql_cli_hooks_free(h);
    return false;
  }
  /* always there: a reload may turn on CORS, authentication or demand
   * control (a request without them costs a look at its generation) */
  h->hooks = (gql_http_hooks){.ud = h,
                              .worker_start = worker_start,
                              .worker_free = worker_free,
                              .request = on_request,
                              .execute = on_execute};
  h->admission = (gql_http_admission){.ud = h, .admit = admit};
  o->hooks = &h->hooks;
  o->admission = &h->admission;
  return true;
}

void gql_cli_hooks_free(gql_cli_hooks *h) {
  gql_cli_live_free(h->first);
  h->first = NULL;
  gql_cli_persisted_free(h->persisted);
  h->persisted = NULL;
  gql_cli_graphiql_free(h->graphiql);
  h->graphiql = NULL;
  gql_cli_redis_free(h->redis);
  h->redis = NULL;
  gql_cli_cost_report_free(&h->cost);
}

const gql_json_value *gql_cli_request_claims(const gql_http_request *r) {
  return gql_http_request_claims(r);
}
