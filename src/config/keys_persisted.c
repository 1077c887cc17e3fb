/* Apollo Router's apq, persisted_queries and demand_control sections (the
 * keys gql applies), and gql's redis and graphiql sections. */
#include "keys.h"

#include <math.h>
#include <stdlib.h>

/* persisted_queries.local_manifests: paths, relative ones from the file. */
static void decode_manifests(cfg_ctx *c, const ynode *v, void *field,
                             const char *what) {
  gql_cfg_strs *out = field;
  if (!cfg_strs(c, v, what, out))
    return;
  for (uint32_t i = 0; i < out->count; i++)
    if (out->items[i][0] != '/' && c->base[0])
      out->items[i] =
          gql_arena_sprintf(c->arena, "%s%s", c->base, out->items[i]);
}

/* demand_control.mode: measure or enforce. */
static void decode_mode(cfg_ctx *c, const ynode *v, void *field,
                        const char *what) {
  const char *s = cfg_string(c, v, what);
  if (!s)
    return;
  if (strcmp(s, "enforce") && strcmp(s, "measure")) {
    gql_cfg_error(c, v->loc, "%s takes measure or enforce, not '%s'", what, s);
    return;
  }
  *(bool *)field = strcmp(s, "enforce") == 0;
}

/* strategy.static_estimated.max: a number >= 0 (Router's f64). */
static void decode_max(cfg_ctx *c, const ynode *v, void *field,
                       const char *what) {
  const char *s = v->kind == Y_SCALAR && !v->is_null ? v->text : NULL;
  char *end = NULL;
  double d = s ? strtod(s, &end) : -1;
  if (!s || end == s || *end || !(d >= 0) || !isfinite(d)) {
    gql_cfg_error(c, v->loc, "%s needs a number of at least 0", what);
    return;
  }
  *(double *)field = d;
}

#define PQ(f) offsetof(gql_cfg_persisted, f)
const cfg_key gql_cfg_apq_keys[] = {
    {.name = "enabled", .type = K_FLAG, .offset = PQ(apq)}, {0}};

static const cfg_key safelist_keys[] = {
    {.name = "enabled", .type = K_FLAG, .offset = PQ(safelist)},
    {.name = "require_id", .type = K_FLAG, .offset = PQ(require_id)},
    {0}};

const cfg_key gql_cfg_persisted_keys[] = {
    {.name = "enabled", .type = K_FLAG, .offset = PQ(enabled)},
    {.name = "log_unknown", .type = K_FLAG, .offset = PQ(log_unknown)},
    {.name = "local_manifests",
     .type = K_CUSTOM,
     .offset = PQ(local_manifests),
     .fn = decode_manifests},
    {.name = "safelist", .type = K_SECTION, .offset = 0, .sub = safelist_keys},
    {0}};

#define DC(f) offsetof(gql_cfg_demand_control, f)
static const cfg_key static_estimated_keys[] = {
    {.name = "max", .type = K_CUSTOM, .offset = DC(max), .fn = decode_max},
    {.name = "list_size",
     .type = K_U32,
     .offset = DC(list_size),
     .min = 1,
     .max = 1000000},
    {0}};

static const cfg_key strategy_keys[] = {{.name = "static_estimated",
                                         .type = K_SECTION,
                                         .offset = 0,
                                         .sub = static_estimated_keys},
                                        {0}};

const cfg_key gql_cfg_demand_control_keys[] = {
    {.name = "enabled", .type = K_FLAG, .offset = DC(enabled)},
    {.name = "mode",
     .type = K_CUSTOM,
     .offset = DC(enforce),
     .fn = decode_mode},
    {.name = "strategy", .type = K_SECTION, .offset = 0, .sub = strategy_keys},
    {0}};

/* Offsets from gql_settings.redis_url (the section's base). */
#define RD(f) (offsetof(gql_settings, f) - offsetof(gql_settings, redis_url))
const cfg_key gql_cfg_redis_keys[] = {
    {.name = "url", .type = K_STRING, .offset = RD(redis_url)},
    {.name = "timeout",
     .type = K_DURATION_MS,
     .offset = RD(redis_timeout_ms),
     .min = 1,
     .max = 60000},
    {0}};

/* graphiql.assets: an http(s) base URL as it is, else a folder (relative
 * to the file's). */
static void decode_assets(cfg_ctx *c, const ynode *v, void *field,
                          const char *what) {
  const char *s = cfg_string(c, v, what);
  if (!s)
    return;
  if (strncmp(s, "http://", 7) && strncmp(s, "https://", 8) && s[0] != '/' &&
      c->base[0])
    s = gql_arena_sprintf(c->arena, "%s%s", c->base, s);
  *(const char **)field = s;
}

/* Offsets from gql_settings.graphiql (the section's base). */
#define GI(f) (offsetof(gql_settings, f) - offsetof(gql_settings, graphiql))
const cfg_key gql_cfg_graphiql_keys[] = {
    {.name = "enabled", .type = K_BOOL, .offset = GI(graphiql)},
    {.name = "assets",
     .type = K_CUSTOM,
     .offset = GI(graphiql_assets),
     .fn = decode_assets},
    {0}};
