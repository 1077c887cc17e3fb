/* cors: Apollo Router's section, in its Router 2 form (global defaults and
 * `policies`) and its Router 1 form (top-level origins / match_origins),
 * with Router's checks of what browsers would refuse anyway. */
#include "keys.h"

#include <stdio.h>

/* The section as written: Router 1's top-level origins are kept apart and
 * turned into one policy afterwards. */
typedef struct cors_raw {
  gql_cfg_cors cors;
  gql_cfg_strs origins, match_origins;
} cors_raw;

static void decode_policies(cfg_ctx *c, const ynode *v, void *field,
                            const char *what);

#define CR(f) offsetof(cors_raw, f)
static const cfg_key cors_keys[] = {
    {.name = "allow_any_origin",
     .type = K_FLAG,
     .offset = CR(cors.allow_any_origin)},
    {.name = "allow_credentials",
     .type = K_FLAG,
     .offset = CR(cors.allow_credentials)},
    {.name = "allow_headers", .type = K_STRS, .offset = CR(cors.allow_headers)},
    {.name = "expose_headers",
     .type = K_STRS,
     .offset = CR(cors.expose_headers)},
    {.name = "methods", .type = K_STRS, .offset = CR(cors.methods)},
    {.name = "max_age",
     .type = K_DURATION_S,
     .offset = CR(cors.max_age),
     .min = 0,
     .max = 86400000ull * 365},
    {.name = "origins", .type = K_STRS, .offset = CR(origins)},
    {.name = "match_origins", .type = K_STRS, .offset = CR(match_origins)},
    {.name = "policies",
     .type = K_CUSTOM,
     .offset = CR(cors),
     .fn = decode_policies},
    {0}};

#define PO(f) offsetof(gql_cfg_cors_policy, f)
static const cfg_key policy_keys[] = {
    {.name = "origins", .type = K_STRS, .offset = PO(origins)},
    {.name = "match_origins", .type = K_STRS, .offset = PO(match_origins)},
    {.name = "allow_credentials",
     .type = K_BOOL,
     .offset = PO(allow_credentials)},
    {.name = "allow_headers", .type = K_STRS, .offset = PO(allow_headers)},
    {.name = "expose_headers", .type = K_STRS, .offset = PO(expose_headers)},
    {.name = "methods", .type = K_STRS, .offset = PO(methods)},
    {.name = "max_age",
     .type = K_DURATION_S,
     .offset = PO(max_age),
     .min = 0,
     .max = 86400000ull * 365},
    {0}};

static void decode_policies(cfg_ctx *c, const ynode *v, void *field,
                            const char *what) {
  gql_cfg_cors *cors = field;
  cors->policies_set = true;
  if (v->is_null)
    return;
  if (v->kind != Y_SEQ) {
    gql_cfg_error(c, v->loc, "%s needs a list of policies", what);
    return;
  }
  cors->policies =
      gql_arena_alloc(c->arena, sizeof(gql_cfg_cors_policy) * (v->len + 1));
  if (!cors->policies)
    return;
  for (uint32_t i = 0; i < v->len; i++) {
    gql_cfg_cors_policy *p = &cors->policies[cors->npolicies++];
    *p = (gql_cfg_cors_policy){.max_age = -1, .loc = v->items[i].loc};
    if (v->items[i].kind != Y_MAP) {
      gql_cfg_error(c, v->items[i].loc, "a CORS policy is a map of keys");
      continue;
    }
    cfg_decode_map(c, &v->items[i], p, policy_keys, "cors.policies[]");
  }
}

static bool token(const char *s) {
  if (!*s)
    return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || strchr("!#$%&'*+-.^_`|~", *s)))
      return false;
  return true;
}

static bool has_star(const gql_cfg_strs *s) {
  for (uint32_t i = 0; i < s->count; i++)
    if (!strcmp(s->items[i], "*"))
      return true;
  return false;
}

/* Header names and methods are tokens; `*` with credentials is refused, as
 * browsers take it literally then (Fetch: CORS protocol and credentials). */
static void check_names(cfg_ctx *c, gql_location loc, const gql_cfg_strs *s,
                        const char *what, bool credentials) {
  for (uint32_t i = 0; i < s->count; i++)
    if (!token(s->items[i]))
      gql_cfg_error(c, loc, "cors: %s '%s' is not a valid name", what,
                    s->items[i]);
  if (credentials && has_star(s))
    gql_cfg_error(
        c, loc,
        "cors: allow_credentials cannot go with %s: [\"*\"] (browsers "
        "take * literally with credentials)",
        what);
}

static void check_origins(cfg_ctx *c, gql_location loc, const gql_cfg_strs *o,
                          const gql_cfg_strs *m) {
  for (uint32_t i = 0; i < o->count; i++) {
    const char *s = o->items[i];
    size_t len = strlen(s);
    if (!strcmp(s, "*"))
      gql_cfg_error(c, loc,
                    "cors: use allow_any_origin: true rather than origins: "
                    "[\"*\"]");
    else if (len > 1 && s[len - 1] == '/')
      gql_cfg_error(c, loc,
                    "cors: origin '%s' ends with '/' (an origin never does: "
                    "scheme://host[:port])",
                    s);
    else
      for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x21 || *p == 0x7f) {
          gql_cfg_error(c, loc, "cors: origin '%s' is not valid", s);
          break;
        }
  }
  for (uint32_t i = 0; i < m->count; i++) {
    char why[200];
    if (!gql_cfg_regex_ok(m->items[i], why, sizeof why))
      gql_cfg_error(c, loc, "cors: bad match_origins regex '%s': %s",
                    m->items[i], why);
  }
}

static void check_policy(cfg_ctx *c, const gql_cfg_cors *g,
                         const gql_cfg_cors_policy *p) {
  bool cred = p->allow_credentials == GQL_CFG_UNSET
                  ? g->allow_credentials
                  : p->allow_credentials == GQL_CFG_TRUE;
  check_origins(c, p->loc, &p->origins, &p->match_origins);
  check_names(c, p->loc, &p->allow_headers, "allow_headers", cred);
  check_names(c, p->loc, &p->expose_headers, "expose_headers", cred);
  check_names(c, p->loc, &p->methods, "methods", cred);
}

void gql_cfg_decode_cors(cfg_ctx *c, const ynode *v, void *field,
                         const char *what) {
  gql_cfg_cors *out = field;
  cors_raw raw = {.cors = {.max_age = -1, .loc = v->loc}};
  cfg_decode_map(c, v, &raw, cors_keys, what);
  gql_cfg_cors *g = &raw.cors;
  g->set = true;
  if ((raw.origins.set || raw.match_origins.set) && g->policies_set)
    gql_cfg_error(c, v->loc,
                  "cors: give either policies (Router 2) or origins / "
                  "match_origins (Router 1), not both");
  if (raw.origins.set || raw.match_origins.set) {
    g->policies = gql_arena_alloc(c->arena, sizeof(gql_cfg_cors_policy));
    if (!g->policies)
      return;
    g->policies[0] = (gql_cfg_cors_policy){.origins = raw.origins,
                                           .match_origins = raw.match_origins,
                                           .max_age = -1,
                                           .loc = v->loc};
    g->npolicies = 1;
    g->policies_set = true;
  }
  if (g->allow_credentials && g->allow_any_origin)
    gql_cfg_error(c, v->loc,
                  "cors: allow_credentials cannot go with allow_any_origin "
                  "(browsers refuse credentials with origin *)");
  check_names(c, v->loc, &g->allow_headers, "allow_headers",
              g->allow_credentials);
  check_names(c, v->loc, &g->expose_headers, "expose_headers",
              g->allow_credentials);
  check_names(c, v->loc, &g->methods, "methods", g->allow_credentials);
  for (uint32_t i = 0; i < g->npolicies; i++)
    check_policy(c, g, &g->policies[i]);
  *out = *g;
}
