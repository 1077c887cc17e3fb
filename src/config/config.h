/*
 * The configuration file: YAML (libyaml) → one settings struct shared by
 * `gql serve` and `gql gateway`, which the command-line flags also fill
 * (the flags are applied after the file, so they override it).
 *
 * Where Apollo Router's router.yaml has a feature, the keys have its names
 * and shapes (supergraph, headers, cors, authentication, authorization,
 * limits); gql's own keys are in sections of their own (server, serve,
 * gateway, trace). docs/config.md documents every key.
 *
 * Loading refuses unknown keys, wrong types and values out of range, each
 * as "FILE:LINE:COLUMN: message"; ${env.NAME} and ${env.NAME:-default} are
 * expanded in values. The input is bounded: file size, nesting depth, node
 * count, scalar length and list lengths (see GQL_CONFIG_MAX_*); YAML
 * aliases and tags are refused (no alias expansion can blow up memory).
 *
 * A zero field means "not set": the consumer applies its default. Every
 * string is NUL-terminated and lives in the settings' arena.
 */
#ifndef GQL_CONFIG_H
#define GQL_CONFIG_H

#include "core/core.h"

#define GQL_CONFIG_MAX_BYTES ((size_t)1 << 20) /* file size */
#define GQL_CONFIG_MAX_DEPTH 32u               /* nested maps and lists */
#define GQL_CONFIG_MAX_NODES 100000u           /* scalars, maps, lists */
#define GQL_CONFIG_MAX_SCALAR 65536u           /* bytes, after expansion */
#define GQL_CONFIG_MAX_ITEMS 1000u             /* entries in one list/map */
#define GQL_CONFIG_MAX_ERRORS 20u              /* reported before giving up */

/* A boolean that may be unset. */
typedef enum gql_cfg_bool {
  GQL_CFG_UNSET = 0,
  GQL_CFG_FALSE,
  GQL_CFG_TRUE
} gql_cfg_bool;

typedef struct gql_cfg_strs {
  const char **items;
  uint32_t count;
  bool set; /* the key was given (possibly as an empty list) */
} gql_cfg_strs;

/* ------------------------------------------------------------ supergraph */

typedef struct gql_cfg_listen {
  bool set;
  const char *host;      /* NULL with unix_path */
  int port;              /* 0..65535 (0: any free port) */
  const char *unix_path; /* "unix:PATH" */
  gql_location loc;
} gql_cfg_listen;

typedef struct gql_cfg_supergraph {
  gql_cfg_listen listen;
  const char *path; /* the GraphQL endpoint, "/..." */
  gql_cfg_bool introspection;
} gql_cfg_supergraph;

/* --------------------------------------------------------------- headers */

typedef enum gql_cfg_header_kind {
  GQL_HDR_PROPAGATE_NAMED,    /* name [rename] [value = default] */
  GQL_HDR_PROPAGATE_MATCHING, /* pattern */
  GQL_HDR_INSERT_VALUE,       /* name value */
  GQL_HDR_INSERT_FROM_CLAIM,  /* name pattern = claim name [value=default] */
  GQL_HDR_INSERT_FROM_BODY,   /* name pattern = path [value = default] */
  GQL_HDR_REMOVE_NAMED,       /* name */
  GQL_HDR_REMOVE_MATCHING     /* pattern */
} gql_cfg_header_kind;

typedef struct gql_cfg_header_rule {
  uint8_t kind;        /* gql_cfg_header_kind */
  const char *name;    /* lower case */
  const char *rename;  /* propagate named: the name to send (lower case) */
  const char *value;   /* insert's value; propagate's / from_*'s default */
  const char *pattern; /* regex, claim name, or body path ("a.b") */
  gql_location loc;
} gql_cfg_header_rule;

typedef struct gql_cfg_header_rules {
  gql_cfg_header_rule *items;
  uint32_t count;
} gql_cfg_header_rules;

typedef struct gql_cfg_subgraph_headers {
  const char *name;
  gql_cfg_header_rules request;
  gql_location loc;
} gql_cfg_subgraph_headers;

typedef struct gql_cfg_headers {
  gql_cfg_header_rules all;
  gql_cfg_subgraph_headers *subgraphs;
  uint32_t nsubgraphs;
} gql_cfg_headers;

/* ------------------------------------------------------------------ cors */

typedef struct gql_cfg_cors_policy {
  gql_cfg_strs origins;
  gql_cfg_strs match_origins; /* regexes */
  gql_cfg_bool allow_credentials;
  gql_cfg_strs allow_headers;
  gql_cfg_strs expose_headers;
  gql_cfg_strs methods; /* .set false: the global methods */
  int64_t max_age;      /* seconds; -1: the global max_age */
  gql_location loc;
} gql_cfg_cors_policy;

typedef struct gql_cfg_cors {
  bool set; /* the section is present: CORS is on */
  bool allow_any_origin;
  bool allow_credentials;
  gql_cfg_strs allow_headers; /* empty: mirror the request's */
  gql_cfg_strs expose_headers;
  gql_cfg_strs methods; /* default GET, POST, OPTIONS */
  int64_t max_age;      /* seconds; -1: none */
  /* Router 2's per-origin policies, or Router 1's top-level origins and
   * match_origins as one policy; absent: the Studio origin only. */
  gql_cfg_cors_policy *policies;
  uint32_t npolicies;
  bool policies_set;
  gql_location loc;
} gql_cfg_cors;

/* --------------------------------------------------------- authentication */

typedef struct gql_cfg_jwks {
  const char *url; /* file:///PATH, file://RELATIVE, http://... */
  gql_cfg_strs issuers;
  gql_cfg_strs audiences;
  gql_cfg_strs algorithms; /* RS256 ... (checked names) */
  uint64_t poll_interval_ms;
  const char **header_names; /* headers of the JWKS request */
  const char **header_values;
  uint32_t nheaders;
  gql_location loc;
} gql_cfg_jwks;

typedef struct gql_cfg_jwt {
  bool set;
  gql_cfg_jwks *jwks;
  uint32_t njwks;
  const char *header_name;         /* default "authorization" */
  const char *header_value_prefix; /* default "Bearer"; "" for none */
  bool ignore_other_prefixes;
  bool on_error_continue; /* on_error: Continue */
  int64_t leeway_s;       /* -1: default */
  gql_location loc;
} gql_cfg_jwt;

/* ---------------------------------------------------------------- limits */

typedef struct gql_cfg_limits {
  /* Router's operation limits (0: none) */
  uint32_t max_depth, max_height, max_aliases, max_root_fields;
  uint64_t http_max_request_bytes;     /* request body */
  uint32_t http1_max_request_headers;  /* header count */
  uint64_t http1_max_request_buf_size; /* request line + headers bytes */
  uint32_t parser_max_recursion;       /* nesting of the document */
  uint32_t parser_max_tokens;
  uint32_t max_fields; /* gql's: planned fields of one operation */
} gql_cfg_limits;

/* ------------------------------------------------------- gql's own parts */

typedef enum gql_cfg_log_level {
  GQL_CFG_LOG_UNSET = 0,
  GQL_CFG_LOG_ERROR,
  GQL_CFG_LOG_WARN,
  GQL_CFG_LOG_INFO,
  GQL_CFG_LOG_DEBUG
} gql_cfg_log_level;

typedef struct gql_cfg_server {
  uint32_t threads;
  uint32_t max_connections;
  uint64_t idle_timeout_ms;
  uint64_t request_timeout_ms;
  uint64_t shutdown_timeout_ms;
  uint64_t document_cache_bytes;
  uint8_t log_level;        /* gql_cfg_log_level */
  uint8_t log_format;       /* 0 unset, 1 text, 2 json */
  gql_cfg_bool metrics;     /* Prometheus metrics (unset: on) */
  const char *metrics_path; /* NULL: /metrics */
} gql_cfg_server;

/* subscription.mode.passthrough (Router's shape): how the gateway opens a
 * subscription to a subgraph. */
typedef enum gql_cfg_sub_protocol {
  GQL_CFG_SUB_PROTOCOL_UNSET = 0, /* graphql_ws */
  GQL_CFG_SUB_GRAPHQL_WS, /* Router's graphql_ws: graphql-transport-ws */
  GQL_CFG_SUB_SSE         /* gql's sse: graphql-sse, distinct mode */
} gql_cfg_sub_protocol;

typedef struct gql_cfg_sub_passthrough {
  const char *name; /* the subgraph (NULL in `all`) */
  uint8_t protocol; /* gql_cfg_sub_protocol */
  const char *path; /* replaces the subgraph URL's path (NULL: its own) */
  gql_location loc;
} gql_cfg_sub_passthrough;

typedef struct gql_cfg_sub_mode {
  gql_cfg_sub_passthrough all;
  gql_cfg_sub_passthrough *subgraphs;
  uint32_t nsubgraphs;
} gql_cfg_sub_mode;

/* subscription: Router's names where it has them, gql's own besides. */
typedef struct gql_cfg_subscription {
  gql_cfg_bool enabled;                      /* unset: on */
  uint32_t max_opened_subscriptions;         /* Router's; 0: no limit */
  uint32_t queue_capacity;                   /* Router's; per subscriber */
  uint32_t max_subscriptions_per_connection; /* gql's */
  uint64_t ping_interval_ms;                 /* gql's */
  uint64_t init_timeout_ms;                  /* gql's: connection_init */
  uint64_t max_message_bytes;                /* gql's */
  uint64_t sse_reservation_ttl_ms;           /* gql's: graphql-sse PUT */
  const char *channel_prefix;                /* gql's: Redis channels */
  uint64_t max_event_bytes;                  /* gql's: Redis events */
  gql_cfg_sub_mode mode;                     /* Router's: the gateway's */
} gql_cfg_subscription;

/* Subgraph `name`'s subscription protocol and path: its entry of
 * mode.passthrough.subgraphs, whose unset keys are `all`'s. */
gql_cfg_sub_passthrough
gql_cfg_sub_passthrough_of(const gql_cfg_subscription *s, gql_str name);

typedef struct gql_cfg_serve {
  const char *schema; /* paths, relative ones resolved from the file */
  const char *data;
  gql_cfg_bool subgraph;
  gql_cfg_bool defer_stream; /* --defer-stream: @defer and @stream added */
} gql_cfg_serve;

typedef struct gql_cfg_gateway {
  const char *supergraph;
  uint64_t subgraph_timeout_ms;
  uint64_t connect_timeout_ms;
  uint32_t max_subgraph_connections;
  uint64_t plan_cache_bytes; /* per thread; 0: the plan cache's default */
} gql_cfg_gateway;

typedef struct gql_cfg_trace {
  const char *otlp;
  const char *file;
  gql_cfg_bool collapse;
  bool depth_set;
  int32_t depth; /* -1: unlimited */
  gql_cfg_bool source;
  gql_cfg_strs variables;
  const char *service_name;
  uint64_t timeout_ms;
  const char *protocol; /* http/json | http/protobuf (a flag; key to come) */
} gql_cfg_trace;

/* Apollo Router's apq and persisted_queries sections, and demand_control
 * (keys_persisted.c). */
typedef struct gql_cfg_persisted {
  bool apq;                     /* apq.enabled (gql's default: off) */
  bool enabled;                 /* persisted_queries.enabled */
  bool log_unknown;             /* persisted_queries.log_unknown */
  bool safelist;                /* persisted_queries.safelist.enabled */
  bool require_id;              /* persisted_queries.safelist.require_id */
  gql_cfg_strs local_manifests; /* paths, relative ones from the file */
} gql_cfg_persisted;

typedef struct gql_cfg_demand_control {
  bool enabled;
  bool enforce;       /* mode: enforce (else measure) */
  double max;         /* strategy.static_estimated.max (0: none) */
  uint32_t list_size; /* strategy.static_estimated.list_size (0: 10) */
} gql_cfg_demand_control;

/* ------------------------------------------------------------- settings */

typedef struct gql_settings {
  gql_arena *arena; /* owns everything below */
  const char *file; /* the file loaded (NULL: flags only) */
  gql_cfg_supergraph supergraph;
  gql_cfg_server server;
  gql_cfg_serve serve;
  gql_cfg_gateway gateway;
  gql_cfg_limits limits;
  gql_cfg_trace trace;
  gql_cfg_headers headers;
  gql_cfg_cors cors;
  gql_cfg_jwt jwt;
  gql_cfg_bool require_authentication; /* authorization.* */
  gql_cfg_persisted persisted;
  gql_cfg_demand_control demand_control;
  /* redis: {url, timeout}: the Redis shared by the replicas (APQ store). */
  /* graphiql: {enabled, assets}: the page at the endpoint for browsers */
  gql_cfg_bool graphiql;
  const char *graphiql_assets; /* a folder, or an http(s) base URL */
  const char *redis_url;
  uint64_t redis_timeout_ms; /* a command's deadline (0: 100 ms) */
  gql_cfg_subscription subscription;
} gql_settings;

/* Where ${env.NAME} values come from (NULL: getenv). */
typedef struct gql_settings_env {
  const char *(*get)(void *ud, const char *name);
  void *ud;
} gql_settings_env;

/* Empty settings (nothing set), for flags alone. NULL on no memory. */
gql_settings *gql_settings_new(void);
void gql_settings_free(gql_settings *s);

/* Reads and loads the file at `path`. Returns 0 and *out, or a negative
 * gql_err with *errors (malloc'ed, free it) holding one line per problem,
 * "PATH:LINE:COLUMN: message" (or "PATH: message" without a place). */
int gql_settings_load_file(const char *path, const gql_settings_env *env,
                           gql_settings **out, char **errors);
/* The same over text already read; `path` names it in messages and is the
 * base of relative paths (NULL: "<config>", paths from the current
 * directory). */
int gql_settings_load(const char *path, const char *text, size_t len,
                      const gql_settings_env *env, gql_settings **out,
                      char **errors);

/* A copy of `s` into the settings' arena (for flags). NULL on no memory. */
const char *gql_settings_strdup(gql_settings *st, const char *s);

/* Parses "HOST:PORT", "[V6]:PORT", ":PORT" or "unix:PATH" into *l (strings
 * in st's arena). false with *why set on a bad address. */
bool gql_settings_parse_listen(gql_settings *st, const char *text,
                               gql_cfg_listen *l, const char **why);

/* Parses a duration with units as Router does ("30s", "1m 30s", "250ms",
 * "2h"); units ns us ms s m h d. false when it is not one. */
bool gql_cfg_parse_duration_ms(const char *s, uint64_t *ms);

/* The JWS algorithm names gql accepts in jwks.algorithms. */
bool gql_cfg_is_jws_algorithm(const char *name);

/* The entries of st naming a subgraph that is none of `names` (the
 * supergraph's): subscription.mode.passthrough.subgraphs.NAME and
 * headers.subgraphs.NAME. Returns their count with *out (malloc'ed, free
 * it; NULL for none) holding one line each, "PATH:LINE:COLUMN: KEY.NAME
 * names no subgraph of the supergraph (a, b): it applies to none", or
 * GQL_ENOMEM. */
int gql_cfg_unknown_subgraphs(const gql_settings *st, const gql_str *names,
                              uint32_t n, char **out);

#endif
