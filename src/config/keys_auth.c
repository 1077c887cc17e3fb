/* authentication.router.jwt: Apollo Router's JWT section.
 *
 *   authentication:
 *     router:
 *       jwt:
 *         header_name: authorization      # default
 *         header_value_prefix: Bearer     # default
 *         jwks:
 *           - url: file:///etc/gql/jwks.json
 *             issuers: [https://issuer.example]   # or issuer: (Router 1)
 *             audiences: [my-api]
 *             algorithms: [RS256, ES256]
 *             poll_interval: 60s
 */
#include "keys.h"

#include <stdio.h>

typedef struct jwks_raw {
  gql_cfg_jwks jwks;
  const char *issuer; /* Router 1's single issuer */
} jwks_raw;

static void decode_jwks_list(cfg_ctx *c, const ynode *v, void *field,
                             const char *what);
static void decode_on_error(cfg_ctx *c, const ynode *v, void *field,
                            const char *what);
static void decode_jwks_headers(cfg_ctx *c, const ynode *v, void *field,
                                const char *what);

#define JW(f) offsetof(gql_cfg_jwt, f)
static const cfg_key jwt_keys[] = {
    {.name = "jwks", .type = K_CUSTOM, .offset = 0, .fn = decode_jwks_list},
    {.name = "header_name", .type = K_STRING, .offset = JW(header_name)},
    {.name = "header_value_prefix",
     .type = K_STRING,
     .offset = JW(header_value_prefix)},
    {.name = "ignore_other_prefixes",
     .type = K_FLAG,
     .offset = JW(ignore_other_prefixes)},
    {.name = "on_error",
     .type = K_CUSTOM,
     .offset = JW(on_error_continue),
     .fn = decode_on_error},
    {.name = "leeway",
     .type = K_DURATION_S,
     .offset = JW(leeway_s),
     .min = 0,
     .max = 3600000},
    {0}};

#define JR(f) offsetof(jwks_raw, f)
static const cfg_key jwks_keys[] = {
    {.name = "url", .type = K_STRING, .offset = JR(jwks.url)},
    {.name = "issuer", .type = K_STRING, .offset = JR(issuer)},
    {.name = "issuers", .type = K_STRS, .offset = JR(jwks.issuers)},
    {.name = "audiences", .type = K_STRS, .offset = JR(jwks.audiences)},
    {.name = "algorithms", .type = K_STRS, .offset = JR(jwks.algorithms)},
    {.name = "poll_interval",
     .type = K_DURATION_MS,
     .offset = JR(jwks.poll_interval_ms),
     .min = 1000,
     .max = 86400000},
    {.name = "headers",
     .type = K_CUSTOM,
     .offset = JR(jwks),
     .fn = decode_jwks_headers},
    {0}};

static void decode_on_error(cfg_ctx *c, const ynode *v, void *field,
                            const char *what) {
  const char *s = cfg_string(c, v, what);
  if (s && !strcmp(s, "Continue"))
    *(bool *)field = true;
  else if (s && !strcmp(s, "Error"))
    *(bool *)field = false;
  else if (s)
    gql_cfg_error(c, v->loc, "%s needs Error or Continue, not '%s'", what, s);
}

static void decode_jwks_headers(cfg_ctx *c, const ynode *v, void *field,
                                const char *what) {
  gql_cfg_jwks *j = field;
  if (v->kind != Y_SEQ) {
    gql_cfg_error(c, v->loc, "%s needs a list of {name, value}", what);
    return;
  }
  j->header_names = gql_arena_alloc(c->arena, sizeof(char *) * (v->len + 1));
  j->header_values = gql_arena_alloc(c->arena, sizeof(char *) * (v->len + 1));
  if (!j->header_names || !j->header_values)
    return;
  for (uint32_t i = 0; i < v->len; i++) {
    const ynode *h = &v->items[i];
    const ynode *name = NULL, *value = NULL;
    for (uint32_t k = 0; h->kind == Y_MAP && k + 1 < h->len; k += 2) {
      const ynode *key = &h->items[k];
      if (key->kind == Y_SCALAR && !strcmp(key->text, "name") && !name)
        name = &h->items[k + 1];
      else if (key->kind == Y_SCALAR && !strcmp(key->text, "value") && !value)
        value = &h->items[k + 1];
      else
        name = value = NULL, k = h->len; /* refused below */
    }
    if (!name || !value) {
      gql_cfg_error(c, h->loc, "%s: each header is {name, value}", what);
      continue;
    }
    const char *n = cfg_header_name(c, name, what);
    const char *val = cfg_header_value(c, value, what);
    if (n && val) {
      j->header_names[j->nheaders] = n;
      j->header_values[j->nheaders++] = val;
    }
  }
}

static void check_url(cfg_ctx *c, gql_cfg_jwks *j, const ynode *at) {
  const char *u = j->url;
  if (!u) {
    gql_cfg_error(c, at->loc, "a jwks entry needs a url");
    return;
  }
  if (!strncmp(u, "file://", 7)) {
    const char *path = u + 7;
    if (!*path)
      gql_cfg_error(c, at->loc, "jwks url '%s' names no file", u);
    else if (path[0] != '/' && c->base[0]) /* relative to the config file */
      j->url = gql_arena_sprintf(c->arena, "file://%s%s", c->base, path);
    return;
  }
  if (strncmp(u, "http://", 7) != 0)
    gql_cfg_error(c, at->loc,
                  "jwks url '%s': gql reads file:// and http:// URLs (put a "
                  "TLS JWKS endpoint behind a file or a local proxy)",
                  u);
}

static void decode_jwks_list(cfg_ctx *c, const ynode *v, void *field,
                             const char *what) {
  gql_cfg_jwt *jwt = field;
  if (v->kind != Y_SEQ || v->len == 0) {
    gql_cfg_error(c, v->loc, "%s needs a list of {url, ...}", what);
    return;
  }
  jwt->jwks = gql_arena_alloc(c->arena, sizeof(gql_cfg_jwks) * v->len);
  if (!jwt->jwks)
    return;
  for (uint32_t i = 0; i < v->len; i++) {
    jwks_raw raw = {.jwks = {.loc = v->items[i].loc}};
    cfg_decode_map(c, &v->items[i], &raw, jwks_keys, what);
    gql_cfg_jwks *j = &raw.jwks;
    if (raw.issuer && j->issuers.set)
      gql_cfg_error(c, v->items[i].loc,
                    "jwks: give issuers (a list) or issuer, not both");
    else if (raw.issuer) {
      const char **one = gql_arena_alloc(c->arena, sizeof(char *));
      if (one) {
        one[0] = raw.issuer;
        j->issuers = (gql_cfg_strs){one, 1, true};
      }
    }
    for (uint32_t k = 0; k < j->algorithms.count; k++)
      if (!gql_cfg_is_jws_algorithm(j->algorithms.items[k]))
        gql_cfg_error(c, v->items[i].loc,
                      "jwks: unknown algorithm '%s' (gql verifies HS256, "
                      "HS384, HS512, RS256, RS384, RS512, PS256, PS384, "
                      "PS512, ES256, ES384)",
                      j->algorithms.items[k]);
    check_url(c, j, &v->items[i]);
    jwt->jwks[jwt->njwks++] = *j;
  }
}

void gql_cfg_decode_jwt(cfg_ctx *c, const ynode *v, void *field,
                        const char *what) {
  gql_cfg_jwt *jwt = field;
  jwt->set = true;
  jwt->loc = v->loc;
  cfg_decode_map(c, v, jwt, jwt_keys, what);
  if (!jwt->njwks)
    gql_cfg_error(c, v->loc, "%s needs jwks: a list of key sets", what);
  const char *p = jwt->header_value_prefix;
  for (; p && *p; p++)
    if (*p == ' ' || *p == '\t') {
      gql_cfg_error(c, v->loc,
                    "%s.header_value_prefix must not contain whitespace", what);
      break;
    }
  if (jwt->header_name) {
    ynode n = {.kind = Y_SCALAR,
               .text = jwt->header_name,
               .len = (uint32_t)strlen(jwt->header_name),
               .loc = v->loc};
    jwt->header_name = cfg_header_name(c, &n, "jwt.header_name");
  }
}
