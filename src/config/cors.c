#include "cors.h"
#include "regex.h"

#include <stdio.h>
#include <stdlib.h>

/* One policy with the global defaults folded in and its header values
 * joined ahead, so deciding allocates and formats nothing. */
typedef struct policy {
  const gql_cfg_strs *origins;
  gql_regex **regexes;
  uint32_t nregexes;
  bool credentials;
  gql_str allow_headers; /* empty: mirror the request's */
  gql_str expose_headers;
  gql_str methods;
  gql_str max_age; /* empty: none */
} policy;

struct gql_cors {
  bool any_origin;
  policy *policies;
  uint32_t npolicies;
  policy any; /* the allow_any_origin answer */
  char *text; /* the joined values */
  size_t text_len, text_cap;
};

static const char *const default_methods[] = {"GET", "POST", "OPTIONS"};
static const char *const studio[] = {"https://studio.apollographql.com"};
static const gql_cfg_strs studio_origins = {(const char **)studio, 1, true};

/* Appends the items joined by ", " to c->text; returns the slice. The text
 * was sized for everything up front, so it never moves. */
static gql_str join(gql_cors *c, const gql_cfg_strs *s, const char *const *def,
                    uint32_t ndef) {
  const char *const *items = s && s->set ? s->items : def;
  uint32_t n = s && s->set ? s->count : ndef;
  char *start = c->text + c->text_len;
  for (uint32_t i = 0; i < n; i++) {
    size_t len = strlen(items[i]);
    assert(c->text_len + len + 2 <= c->text_cap);
    if (i) {
      memcpy(c->text + c->text_len, ", ", 2);
      c->text_len += 2;
    }
    memcpy(c->text + c->text_len, items[i], len);
    c->text_len += len;
  }
  return (gql_str){start, (size_t)(c->text + c->text_len - start)};
}

static size_t strs_bytes(const gql_cfg_strs *s) {
  size_t n = 0;
  for (uint32_t i = 0; s && i < s->count; i++)
    n += strlen(s->items[i]) + 2;
  return n;
}

static gql_str max_age_text(gql_cors *c, int64_t v) {
  if (v < 0)
    return (gql_str){NULL, 0};
  char *start = c->text + c->text_len;
  int len = snprintf(start, c->text_cap - c->text_len, "%lld", (long long)v);
  c->text_len += (size_t)len;
  return (gql_str){start, (size_t)len};
}

void gql_cors_free(gql_cors *c) {
  if (!c)
    return;
  for (uint32_t i = 0; i < c->npolicies; i++) {
    for (uint32_t j = 0; j < c->policies[i].nregexes; j++)
      gql_regex_free(c->policies[i].regexes[j]);
    free(c->policies[i].regexes);
  }
  free(c->policies);
  free(c->text);
  free(c);
}

/* The global values, used where a policy says nothing. */
static void fold(gql_cors *c, policy *p, const gql_cfg_cors *g,
                 const gql_cfg_cors_policy *q) {
  p->credentials = q && q->allow_credentials != GQL_CFG_UNSET
                       ? q->allow_credentials == GQL_CFG_TRUE
                       : g->allow_credentials;
  p->allow_headers = join(
      c, q && q->allow_headers.count ? &q->allow_headers : &g->allow_headers,
      NULL, 0);
  p->expose_headers = join(
      c, q && q->expose_headers.count ? &q->expose_headers : &g->expose_headers,
      NULL, 0);
  p->methods = join(c, q && q->methods.set ? &q->methods : &g->methods,
                    default_methods, 3);
  p->max_age = max_age_text(c, q && q->max_age >= 0 ? q->max_age : g->max_age);
}

int gql_cors_build(const gql_cfg_cors *cfg, gql_cors **out, char *why,
                   size_t n) {
  *out = NULL;
  if (!cfg->set)
    return 0;
  gql_cors *c = calloc(1, sizeof *c);
  if (!c)
    return GQL_ENOMEM;
  uint32_t np = cfg->policies_set ? cfg->npolicies : 1;
  size_t global = strs_bytes(&cfg->allow_headers) +
                  strs_bytes(&cfg->expose_headers) + strs_bytes(&cfg->methods) +
                  64;
  c->text_cap = global * (np + 1);
  for (uint32_t i = 0; cfg->policies_set && i < cfg->npolicies; i++) {
    const gql_cfg_cors_policy *q = &cfg->policies[i];
    c->text_cap += strs_bytes(&q->allow_headers) +
                   strs_bytes(&q->expose_headers) + strs_bytes(&q->methods);
  }
  c->text = malloc(c->text_cap);
  c->policies = calloc(np, sizeof(policy));
  if (!c->text || !c->policies) {
    gql_cors_free(c);
    return GQL_ENOMEM;
  }
  c->any_origin = cfg->allow_any_origin;
  fold(c, &c->any, cfg, NULL);
  for (uint32_t i = 0; i < np; i++) {
    const gql_cfg_cors_policy *q = cfg->policies_set ? &cfg->policies[i] : NULL;
    policy *p = &c->policies[c->npolicies++];
    fold(c, p, cfg, q);
    p->origins = q ? &q->origins : &studio_origins;
    uint32_t nre = q ? q->match_origins.count : 0;
    p->regexes = calloc(nre + 1, sizeof(gql_regex *));
    if (!p->regexes) {
      gql_cors_free(c);
      return GQL_ENOMEM;
    }
    for (uint32_t j = 0; j < nre; j++) {
      char msg[200];
      const char *pat = q->match_origins.items[j];
      if (!(p->regexes[p->nregexes] =
                gql_regex_compile(pat, msg, sizeof msg))) {
        snprintf(why, n, "bad regex '%s': %s", pat, msg);
        gql_cors_free(c);
        return GQL_EINVAL;
      }
      p->nregexes++;
    }
  }
  *out = c;
  return 0;
}

static policy *find(gql_cors *c, gql_str origin) {
  if (c->any_origin)
    return &c->any;
  for (uint32_t i = 0; i < c->npolicies; i++) {
    policy *p = &c->policies[i];
    for (uint32_t j = 0; j < p->origins->count; j++)
      if (gql_str_eq_cstr(origin, p->origins->items[j]))
        return p;
    for (uint32_t j = 0; j < p->nregexes; j++)
      if (gql_regex_match(p->regexes[j], origin.ptr, origin.len))
        return p;
  }
  return NULL;
}

static void add(gql_cors_answer *a, gql_str name, gql_str value) {
  assert(a->nheaders < GQL_CORS_MAX_HEADERS);
  a->headers[a->nheaders++] = (gql_header){name, value};
}

static bool is_method(gql_str m, const char *name) {
  return gql_str_eq_cstr(m, name);
}

void gql_cors_decide(gql_cors *c, const gql_cors_request *rq,
                     gql_cors_answer *a) {
  memset(a, 0, sizeof *a);
  if (!c || !rq->origin.ptr)
    return;
  bool preflight = is_method(rq->method, "OPTIONS") && rq->request_method.ptr;
  a->kind = preflight ? GQL_CORS_PREFLIGHT : GQL_CORS_ACTUAL;
  a->status = preflight ? 204 : 0;
  /* "null" (sandboxed pages, file: URLs) only with allow_any_origin */
  policy *p = c->any_origin || !gql_str_eq_cstr(rq->origin, "null")
                  ? find(c, rq->origin)
                  : NULL;
  bool mirror = preflight && p && !p->allow_headers.len;
  if (!c->any_origin)
    add(a, GQL_STR("vary"),
        mirror ? GQL_STR("Origin, Access-Control-Request-Headers")
               : GQL_STR("Origin"));
  if (!p)
    return;
  a->allowed = true;
  add(a, GQL_STR("access-control-allow-origin"),
      c->any_origin ? GQL_STR("*") : rq->origin);
  if (p->credentials)
    add(a, GQL_STR("access-control-allow-credentials"), GQL_STR("true"));
  if (!preflight) {
    if (p->expose_headers.len)
      add(a, GQL_STR("access-control-expose-headers"), p->expose_headers);
    return;
  }
  add(a, GQL_STR("access-control-allow-methods"), p->methods);
  if (p->allow_headers.len)
    add(a, GQL_STR("access-control-allow-headers"), p->allow_headers);
  else if (rq->request_headers.ptr && rq->request_headers.len)
    add(a, GQL_STR("access-control-allow-headers"), rq->request_headers);
  if (p->max_age.len)
    add(a, GQL_STR("access-control-max-age"), p->max_age);
}
