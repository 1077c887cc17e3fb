/* The configuration's keys, as tables: a section is a table entry naming
 * its keys' table, so a new section (telemetry, persisted_queries, apq,
 * subscription, ...) is one entry and one table, not new parsing code.
 * The sections with rules of their own (headers, cors, jwt) decode their
 * lists in headers_keys.c and auth_keys.c. */
#include "keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------- scalars */

static const char *kind_name(const ynode *n) {
  return n->kind == Y_MAP   ? "a map"
         : n->kind == Y_SEQ ? "a list"
         : n->is_null       ? "null"
                            : "a value";
}

const char *cfg_string(cfg_ctx *c, const ynode *n, const char *what) {
  if (n->kind != Y_SCALAR || n->is_null) {
    gql_cfg_error(c, n->loc, "%s needs a string, not %s", what, kind_name(n));
    return NULL;
  }
  return gql_cfg_expand(c, n);
}

/* A scalar's expanded text; NULL when n is not a (plain, when asked)
 * scalar, or with *failed when the expansion reported an error. */
static const char *scalar_text(cfg_ctx *c, const ynode *n, bool plain,
                               bool *failed) {
  *failed = false;
  if (n->kind != Y_SCALAR || n->is_null || (plain && n->quoted))
    return NULL;
  const char *s = gql_cfg_expand(c, n);
  *failed = s == NULL;
  return s;
}

bool cfg_bool(cfg_ctx *c, const ynode *n, const char *what, bool *out) {
  bool failed;
  const char *s = scalar_text(c, n, true, &failed);
  if (failed)
    return false;
  if (s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")))
    *out = true;
  else if (s &&
           (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")))
    *out = false;
  else {
    gql_cfg_error(c, n->loc, "%s needs true or false", what);
    return false;
  }
  return true;
}

static bool cfg_int(cfg_ctx *c, const ynode *n, const char *what, long long min,
                    long long max, long long *out) {
  bool failed;
  const char *s = scalar_text(c, n, true, &failed);
  if (failed)
    return false;
  char *end = NULL;
  errno = 0;
  long long v = s ? strtoll(s, &end, 10) : 0;
  if (!s || end == s || *end || errno || v < min || v > max) {
    gql_cfg_error(c, n->loc, "%s needs a number from %lld to %lld", what, min,
                  max);
    return false;
  }
  *out = v;
  return true;
}

bool cfg_duration_ms(cfg_ctx *c, const ynode *n, const char *what, uint64_t min,
                     uint64_t max, uint64_t *out) {
  bool failed;
  const char *s = scalar_text(c, n, false, &failed);
  if (failed)
    return false;
  uint64_t ms;
  if (!s || !gql_cfg_parse_duration_ms(s, &ms)) {
    gql_cfg_error(c, n->loc,
                  "%s needs a duration with a unit, such as 30s, 500ms or "
                  "1m 30s",
                  what);
    return false;
  }
  if (ms < min || ms > max) {
    gql_cfg_error(c, n->loc, "%s must be from %llums to %llums", what,
                  (unsigned long long)min, (unsigned long long)max);
    return false;
  }
  *out = ms;
  return true;
}

/* A byte size: a number, or a number with a unit (b, kb, kib, mb, mib, gb,
 * gib; any case), as Router's byte sizes. */
static bool cfg_bytes(cfg_ctx *c, const ynode *n, const char *what,
                      uint64_t min, uint64_t max, uint64_t *out) {
  bool failed;
  const char *s = scalar_text(c, n, false, &failed);
  if (failed)
    return false;
  static const struct {
    const char *unit;
    uint64_t mul;
  } units[] = {
      {"", 1},         {"b", 1},         {"kb", 1000},       {"kib", 1 << 10},
      {"mb", 1000000}, {"mib", 1 << 20}, {"gb", 1000000000}, {"gib", 1 << 30}};
  bool ok = false;
  uint64_t v = 0;
  if (s && *s >= '0' && *s <= '9') {
    char *end;
    errno = 0;
    unsigned long long num = strtoull(s, &end, 10);
    while (*end == ' ')
      end++;
    char unit[8] = {0};
    size_t ul = strlen(end);
    for (size_t i = 0; i < ul && i < sizeof unit - 1; i++)
      unit[i] = (char)(end[i] | 0x20);
    for (size_t i = 0; !errno && ul < sizeof unit && i < GQL_ARRAY_LEN(units);
         i++)
      if (!strcmp(unit, units[i].unit) && num <= UINT64_MAX / units[i].mul) {
        v = num * units[i].mul;
        ok = true;
      }
  }
  if (!ok || v < min || v > max) {
    gql_cfg_error(c, n->loc,
                  "%s needs a byte size from %llu to %llu, such as 1048576 or "
                  "1mib",
                  what, (unsigned long long)min, (unsigned long long)max);
    return false;
  }
  *out = v;
  return true;
}

static const char *cfg_path(cfg_ctx *c, const ynode *n, const char *what) {
  const char *s = cfg_string(c, n, what);
  if (!s || s[0] == '/' || !c->base[0])
    return s;
  return gql_arena_sprintf(c->arena, "%s%s", c->base, s);
}

bool cfg_strs(cfg_ctx *c, const ynode *n, const char *what, gql_cfg_strs *out) {
  uint32_t count = n->kind == Y_SEQ ? n->len : 1;
  const ynode *items = n->kind == Y_SEQ ? n->items : n;
  if (n->kind == Y_MAP) {
    gql_cfg_error(c, n->loc, "%s needs a list of strings, not a map", what);
    return false;
  }
  const char **v = gql_arena_alloc(c->arena, sizeof(char *) * (count + 1));
  if (!v)
    return false;
  uint32_t kept = 0; /* a bad item is reported and left out */
  for (uint32_t i = 0; i < count; i++)
    if ((v[kept] = cfg_string(c, &items[i], what)))
      kept++;
  *out = (gql_cfg_strs){v, kept, true};
  return kept == count;
}

/* --------------------------------------------------------------- maps */

/* The names of the keys in a table, for "expected one of" messages. */
static void key_names(const cfg_key *t, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = 0;
  for (; t->name && used + 2 < n; t++)
    used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                             t->name);
}

/* Apollo Router's sections that gql does not have (yet): named so that a
 * Router file gets a clearer message than "unknown key". */
static const char *const router_only[] = {"telemetry",
                                          "sandbox",
                                          "homepage",
                                          "health_check",
                                          "include_subgraph_errors",
                                          "subscription",
                                          "traffic_shaping",
                                          "tls",
                                          "coprocessor",
                                          "rhai",
                                          "plugins",
                                          "preview_entity_cache",
                                          "csrf",
                                          "override_subgraph_url",
                                          "batching",
                                          "experimental_chaos",
                                          "connectors",
                                          "fleet_detector",
                                          "preview_file_uploads",
                                          NULL};

static void unknown_key(cfg_ctx *c, const ynode *k, const char *section,
                        const cfg_key *t) {
  if (!section[0])
    for (const char *const *r = router_only; *r; r++)
      if (!strcmp(*r, k->text)) {
        gql_cfg_error(c, k->loc,
                      "'%s' (an Apollo Router section) is not supported by "
                      "gql",
                      k->text);
        return;
      }
  char names[400];
  key_names(t, names, sizeof names);
  gql_cfg_error(c, k->loc, "unknown key '%s'%s%s; expected one of: %s", k->text,
                section[0] ? " in " : "", section, names);
}

void cfg_decode_map(cfg_ctx *c, const ynode *n, void *base, const cfg_key *t,
                    const char *section) {
  if (n->kind != Y_MAP) {
    if (n->is_null) /* "section:" with nothing: an empty section */
      return;
    gql_cfg_error(c, n->loc, "%s needs a map of keys, not %s",
                  section[0] ? section : "the file", kind_name(n));
    return;
  }
  uint64_t seen = 0;
  for (uint32_t i = 0; i + 1 < n->len; i += 2) {
    const ynode *k = &n->items[i], *v = &n->items[i + 1];
    if (k->kind != Y_SCALAR || k->is_null) {
      gql_cfg_error(c, k->loc, "a key must be a plain name");
      continue;
    }
    uint32_t idx = 0;
    while (t[idx].name && strcmp(t[idx].name, k->text))
      idx++;
    if (!t[idx].name) {
      unknown_key(c, k, section, t);
      continue;
    }
    assert(idx < 64);
    if (seen & ((uint64_t)1 << idx)) {
      gql_cfg_error(c, k->loc, "'%s' is given twice", k->text);
      continue;
    }
    seen |= (uint64_t)1 << idx;
    char what[160];
    snprintf(what, sizeof what, "%s%s%s", section, section[0] ? "." : "",
             k->text);
    cfg_decode_value(c, v, (char *)base + t[idx].offset, &t[idx], what);
  }
}

void cfg_decode_value(cfg_ctx *c, const ynode *v, void *field, const cfg_key *k,
                      const char *what) {
  long long i;
  uint64_t u;
  bool b;
  const char *s;
  switch (k->type) {
  case K_SECTION:
    cfg_decode_map(c, v, field, k->sub, what);
    break;
  case K_CUSTOM:
    k->fn(c, v, field, what);
    break;
  case K_BOOL:
    if (cfg_bool(c, v, what, &b))
      *(gql_cfg_bool *)field = b ? GQL_CFG_TRUE : GQL_CFG_FALSE;
    break;
  case K_FLAG:
    if (cfg_bool(c, v, what, &b))
      *(bool *)field = b;
    break;
  case K_U32:
    if (cfg_int(c, v, what, (long long)k->min, (long long)k->max, &i))
      *(uint32_t *)field = (uint32_t)i;
    break;
  case K_BYTES:
    if (cfg_bytes(c, v, what, k->min, k->max, &u))
      *(uint64_t *)field = u;
    break;
  case K_DURATION_MS:
    if (cfg_duration_ms(c, v, what, k->min, k->max, &u))
      *(uint64_t *)field = u;
    break;
  case K_DURATION_S:
    if (cfg_duration_ms(c, v, what, 0, k->max, &u))
      *(int64_t *)field = (int64_t)(u / 1000);
    break;
  case K_STRING:
    if ((s = cfg_string(c, v, what)))
      *(const char **)field = s;
    break;
  case K_PATH:
    if ((s = cfg_path(c, v, what)))
      *(const char **)field = s;
    break;
  case K_STRS:
    cfg_strs(c, v, what, field);
    break;
  default:
    assert(!"unknown key type");
  }
}

/* ------------------------------------------------------------ sections */

static void decode_listen(cfg_ctx *c, const ynode *v, void *field,
                          const char *what) {
  gql_cfg_listen *l = field;
  const char *s = cfg_string(c, v, what), *why;
  if (!s)
    return;
  if (!gql_settings_parse_listen(c->st, s, l, &why))
    gql_cfg_error(c, v->loc, "%s '%s': %s", what, s, why ? why : "no memory");
  l->loc = v->loc;
}

static void decode_endpoint(cfg_ctx *c, const ynode *v, void *field,
                            const char *what) {
  const char *s = cfg_string(c, v, what);
  if (!s)
    return;
  if (s[0] != '/' || strpbrk(s, " ?#\t")) {
    gql_cfg_error(c, v->loc, "%s must be a path such as /graphql", what);
    return;
  }
  *(const char **)field = s;
}

static void decode_log_level(cfg_ctx *c, const ynode *v, void *field,
                             const char *what) {
  static const char *const names[] = {"error", "warn", "info", "debug"};
  const char *s = cfg_string(c, v, what);
  for (int i = 0; s && i < 4; i++)
    if (!strcmp(s, names[i])) {
      *(uint8_t *)field = (uint8_t)(GQL_CFG_LOG_ERROR + i);
      return;
    }
  if (s)
    gql_cfg_error(c, v->loc, "%s needs error, warn, info or debug, not '%s'",
                  what, s);
}

static void decode_log_format(cfg_ctx *c, const ynode *v, void *field,
                              const char *what) {
  const char *s = cfg_string(c, v, what);
  if (s && (!strcmp(s, "text") || !strcmp(s, "json")))
    *(uint8_t *)field = s[0] == 't' ? 1 : 2;
  else if (s)
    gql_cfg_error(c, v->loc, "%s needs text or json, not '%s'", what, s);
}

static void decode_trace_depth(cfg_ctx *c, const ynode *v, void *field,
                               const char *what) {
  gql_cfg_trace *t = gql_container_of(field, gql_cfg_trace, depth);
  long long d;
  if (cfg_int(c, v, what, -1, 100000, &d)) {
    t->depth = (int32_t)d;
    t->depth_set = true;
  }
}

static void decode_otlp(cfg_ctx *c, const ynode *v, void *field,
                        const char *what) {
  const char *s = cfg_string(c, v, what);
  if (s && strncmp(s, "http://", 7) != 0) {
    gql_cfg_error(c, v->loc, "%s takes http://HOST[:PORT][/PATH]", what);
    return;
  }
  *(const char **)field = s;
}

#define SUP(f) offsetof(gql_cfg_supergraph, f)
static const cfg_key supergraph_keys[] = {
    {.name = "listen",
     .type = K_CUSTOM,
     .offset = SUP(listen),
     .fn = decode_listen},
    {.name = "path",
     .type = K_CUSTOM,
     .offset = SUP(path),
     .fn = decode_endpoint},
    {.name = "introspection", .type = K_BOOL, .offset = SUP(introspection)},
    {0}};

#define SRV(f) offsetof(gql_cfg_server, f)
static const cfg_key server_keys[] = {
    {.name = "threads",
     .type = K_U32,
     .offset = SRV(threads),
     .min = 1,
     .max = 256},
    {.name = "max_connections",
     .type = K_U32,
     .offset = SRV(max_connections),
     .min = 1,
     .max = 1000000},
    {.name = "idle_timeout",
     .type = K_DURATION_MS,
     .offset = SRV(idle_timeout_ms),
     .min = 1,
     .max = 86400000},
    {.name = "request_timeout",
     .type = K_DURATION_MS,
     .offset = SRV(request_timeout_ms),
     .min = 1,
     .max = 86400000},
    {.name = "shutdown_timeout",
     .type = K_DURATION_MS,
     .offset = SRV(shutdown_timeout_ms),
     .min = 1,
     .max = 3600000},
    {.name = "document_cache",
     .type = K_BYTES,
     .offset = SRV(document_cache_bytes),
     .min = 1,
     .max = (uint64_t)1 << 40},
    {.name = "log_level",
     .type = K_CUSTOM,
     .offset = SRV(log_level),
     .fn = decode_log_level},
    {.name = "log_format",
     .type = K_CUSTOM,
     .offset = SRV(log_format),
     .fn = decode_log_format},
    {.name = "metrics", .type = K_BOOL, .offset = SRV(metrics)},
    {.name = "metrics_path",
     .type = K_CUSTOM,
     .offset = SRV(metrics_path),
     .fn = decode_endpoint},
    {0}};

#define SRVE(f) offsetof(gql_cfg_serve, f)
static const cfg_key serve_keys[] = {
    {.name = "schema", .type = K_PATH, .offset = SRVE(schema)},
    {.name = "data", .type = K_PATH, .offset = SRVE(data)},
    {.name = "subgraph", .type = K_BOOL, .offset = SRVE(subgraph)},
    {0}};

#define GW(f) offsetof(gql_cfg_gateway, f)
static const cfg_key gateway_keys[] = {
    {.name = "supergraph", .type = K_PATH, .offset = GW(supergraph)},
    {.name = "subgraph_timeout",
     .type = K_DURATION_MS,
     .offset = GW(subgraph_timeout_ms),
     .min = 1,
     .max = 3600000},
    {.name = "connect_timeout",
     .type = K_DURATION_MS,
     .offset = GW(connect_timeout_ms),
     .min = 1,
     .max = 3600000},
    {.name = "max_subgraph_connections",
     .type = K_U32,
     .offset = GW(max_subgraph_connections),
     .min = 1,
     .max = 3600000},
    {.name = "plan_cache",
     .type = K_BYTES,
     .offset = GW(plan_cache_bytes),
     .min = 1,
     .max = (uint64_t)1 << 40},
    {0}};

#define LIM(f) offsetof(gql_cfg_limits, f)
static const cfg_key limits_keys[] = {
    {.name = "max_depth",
     .type = K_U32,
     .offset = LIM(max_depth),
     .min = 1,
     .max = 100000},
    {.name = "max_height",
     .type = K_U32,
     .offset = LIM(max_height),
     .min = 1,
     .max = UINT32_MAX},
    {.name = "max_aliases",
     .type = K_U32,
     .offset = LIM(max_aliases),
     .min = 1,
     .max = UINT32_MAX},
    {.name = "max_root_fields",
     .type = K_U32,
     .offset = LIM(max_root_fields),
     .min = 1,
     .max = UINT32_MAX},
    {.name = "http_max_request_bytes",
     .type = K_BYTES,
     .offset = LIM(http_max_request_bytes),
     .min = 1,
     .max = (uint64_t)1 << 32},
    {.name = "http1_max_request_headers",
     .type = K_U32,
     .offset = LIM(http1_max_request_headers),
     .min = 1,
     .max = 100000},
    {.name = "http1_max_request_buf_size",
     .type = K_BYTES,
     .offset = LIM(http1_max_request_buf_size),
     .min = 1,
     .max = 1 << 24},
    {.name = "parser_max_recursion",
     .type = K_U32,
     .offset = LIM(parser_max_recursion),
     .min = 1,
     .max = 100000},
    {.name = "parser_max_tokens",
     .type = K_U32,
     .offset = LIM(parser_max_tokens),
     .min = 1,
     .max = UINT32_MAX},
    {.name = "max_fields",
     .type = K_U32,
     .offset = LIM(max_fields),
     .min = 1,
     .max = UINT32_MAX},
    {0}};

#define TR(f) offsetof(gql_cfg_trace, f)
static const cfg_key trace_keys[] = {
    {.name = "otlp", .type = K_CUSTOM, .offset = TR(otlp), .fn = decode_otlp},
    {.name = "file", .type = K_PATH, .offset = TR(file)},
    {.name = "collapse", .type = K_BOOL, .offset = TR(collapse)},
    {.name = "depth",
     .type = K_CUSTOM,
     .offset = TR(depth),
     .fn = decode_trace_depth},
    {.name = "source", .type = K_BOOL, .offset = TR(source)},
    {.name = "variables", .type = K_STRS, .offset = TR(variables)},
    {.name = "service_name", .type = K_STRING, .offset = TR(service_name)},
    {.name = "timeout",
     .type = K_DURATION_MS,
     .offset = TR(timeout_ms),
     .min = 1,
     .max = 600000},
    {0}};

#define ST(f) offsetof(gql_settings, f)
static const cfg_key authorization_keys[] = {
    {.name = "require_authentication", .type = K_BOOL, .offset = 0}, {0}};

static const cfg_key authentication_router_keys[] = {
    {.name = "jwt", .type = K_CUSTOM, .offset = 0, .fn = gql_cfg_decode_jwt},
    {0}};
static const cfg_key authentication_keys[] = {
    {.name = "router",
     .type = K_SECTION,
     .offset = 0,
     .sub = authentication_router_keys},
    {0}};

#define SUB(f) offsetof(gql_cfg_subscription, f)
static const cfg_key subscription_keys[] = {
    {.name = "enabled", .type = K_BOOL, .offset = SUB(enabled)},
    {.name = "max_opened_subscriptions",
     .type = K_U32,
     .offset = SUB(max_opened_subscriptions),
     .min = 1,
     .max = 10000000},
    {.name = "queue_capacity",
     .type = K_U32,
     .offset = SUB(queue_capacity),
     .min = 1,
     .max = 1000000},
    {.name = "max_subscriptions_per_connection",
     .type = K_U32,
     .offset = SUB(max_subscriptions_per_connection),
     .min = 1,
     .max = 100000},
    {.name = "ping_interval",
     .type = K_DURATION_MS,
     .offset = SUB(ping_interval_ms),
     .min = 100,
     .max = 3600000},
    {.name = "init_timeout",
     .type = K_DURATION_MS,
     .offset = SUB(init_timeout_ms),
     .min = 1,
     .max = 3600000},
    {.name = "max_message",
     .type = K_BYTES,
     .offset = SUB(max_message_bytes),
     .min = 64,
     .max = (uint64_t)1 << 30},
    {.name = "sse_reservation_ttl",
     .type = K_DURATION_MS,
     .offset = SUB(sse_reservation_ttl_ms),
     .min = 100,
     .max = 3600000},
    {.name = "channel_prefix", .type = K_STRING, .offset = SUB(channel_prefix)},
    {.name = "max_event",
     .type = K_BYTES,
     .offset = SUB(max_event_bytes),
     .min = 64,
     .max = (uint64_t)256 << 20},
    {.name = "mode",
     .type = K_SECTION,
     .offset = SUB(mode),
     .sub = gql_cfg_subscription_mode_keys},
    {0}};

static const cfg_key top_keys[] = {{.name = "supergraph",
                                    .type = K_SECTION,
                                    .offset = ST(supergraph),
                                    .sub = supergraph_keys},
                                   {.name = "server",
                                    .type = K_SECTION,
                                    .offset = ST(server),
                                    .sub = server_keys},
                                   {.name = "serve",
                                    .type = K_SECTION,
                                    .offset = ST(serve),
                                    .sub = serve_keys},
                                   {.name = "gateway",
                                    .type = K_SECTION,
                                    .offset = ST(gateway),
                                    .sub = gateway_keys},
                                   {.name = "limits",
                                    .type = K_SECTION,
                                    .offset = ST(limits),
                                    .sub = limits_keys},
                                   {.name = "trace",
                                    .type = K_SECTION,
                                    .offset = ST(trace),
                                    .sub = trace_keys},
                                   {.name = "headers",
                                    .type = K_CUSTOM,
                                    .offset = ST(headers),
                                    .fn = gql_cfg_decode_headers},
                                   {.name = "cors",
                                    .type = K_CUSTOM,
                                    .offset = ST(cors),
                                    .fn = gql_cfg_decode_cors},
                                   {.name = "authentication",
                                    .type = K_SECTION,
                                    .offset = ST(jwt),
                                    .sub = authentication_keys},
                                   {.name = "authorization",
                                    .type = K_SECTION,
                                    .offset = ST(require_authentication),
                                    .sub = authorization_keys},
                                   {.name = "apq",
                                    .type = K_SECTION,
                                    .offset = ST(persisted),
                                    .sub = gql_cfg_apq_keys},
                                   {.name = "persisted_queries",
                                    .type = K_SECTION,
                                    .offset = ST(persisted),
                                    .sub = gql_cfg_persisted_keys},
                                   {.name = "demand_control",
                                    .type = K_SECTION,
                                    .offset = ST(demand_control),
                                    .sub = gql_cfg_demand_control_keys},
                                   {.name = "graphiql",
                                    .type = K_SECTION,
                                    .offset = ST(graphiql),
                                    .sub = gql_cfg_graphiql_keys},
                                   {.name = "redis",
                                    .type = K_SECTION,
                                    .offset = ST(redis_url),
                                    .sub = gql_cfg_redis_keys},
                                   {.name = "subscription",
                                    .type = K_SECTION,
                                    .offset = ST(subscription),
                                    .sub = subscription_keys},
                                   {0}};

void gql_cfg_decode(cfg_ctx *c, const ynode *root) {
  if (root->kind != Y_MAP && !root->is_null) {
    gql_cfg_error(c, root->loc, "the file needs a map of sections, not %s",
                  kind_name(root));
    return;
  }
  cfg_decode_map(c, root, c->st, top_keys, "");
}
