/* Hot reload for gql serve and gql gateway: what a generation is made of
 * (the schema and data files, or the supergraph, plus the live part of the
 * configuration: limits, CORS, headers, authentication with its key sets,
 * demand control; gql_cli_live), loaded once at start and again on SIGHUP
 * or a change to one of those files, the key sets' included (the http
 * part watches them and swaps generations; see gql_http_reload). A load
 * that fails says why on stderr, as at start (FILE:LINE:COLUMN for the
 * configuration), and the server keeps its generation. A changed setting
 * that only a restart applies is said to wait for one. */
#include "cli.h"
#include "federation/subgraph.h"
#include "gateway/gateway.h"
#include "gql_http.h"
#include "schema/schema.h"

#include "../../examples/starwars/starwars.h"

#include <stdlib.h>

/* What one generation owns. */
typedef struct loaded {
  /* first: gql_cli_generation_live (cli.h) reads it there */
  gql_cli_live *live; /* NULL: the first generation's settings */
  gql_schema *schema; /* NULL with sg or supergraph: theirs */
  gql_subgraph *sg;
  gql_supergraph *supergraph;
  gql_arena *arena;
  char *text, *data;
  size_t text_len;
} loaded;

static void loaded_free(void *ud) {
  loaded *l = ud;
  if (!l)
    return;
  if (l->sg)
    gql_subgraph_free(l->sg); /* it owns the schema */
  else
    gql_schema_free(l->schema);
  gql_supergraph_free(l->supergraph);
  gql_cli_live_free(l->live);
  gql_arena_free(l->arena);
  free(l->text);
  free(l->data);
  free(l);
}

int gql_cli_starwars(bool defer_stream, gql_schema **out) {
  if (!defer_stream)
    return gql_starwars_schema(out);
  gql_str sdl = gql_starwars_sdl();
  gql_schema_build_options bo = {.defer_stream = true};
  int rc = gql_schema_build(sdl.ptr, sdl.len, NULL, &bo, out, NULL);
  if (rc >= 0 && (rc = gql_starwars_set_resolvers(*out, false)) < 0) {
    gql_schema_free(*out);
    *out = NULL;
  }
  return rc;
}

/* gql serve's schema (the Star Wars demo without a path) and data. */
static int serve_files(const gql_cli_reload *r, gql_http_generation *out) {
  const char *cmd = r->cmd;
  loaded *l = calloc(1, sizeof *l);
  if (!l || !(l->arena = gql_arena_new(NULL))) {
    free(l);
    fprintf(stderr, "%s: out of memory\n", cmd);
    return GQL_ENOMEM;
  }
  int rc = GQL_EINVAL;
  if (!r->schema) {
    if ((rc = gql_cli_starwars(r->defer_stream, &l->schema)) < 0)
      fprintf(stderr, "%s: cannot build the Star Wars example\n", cmd);
  } else {
    size_t len = 0;
    if (!(l->text = gql_cli_read_file_as(cmd, r->schema, &len)))
      goto fail;
    gql_error_list errs;
    gql_error_list_init(&errs, l->arena, 100);
    gql_schema_build_options bo = {.defer_stream = r->defer_stream};
    rc = r->subgraph
             ? gql_subgraph_build(l->text, len, NULL, &l->sg, &errs)
             : gql_schema_build(l->text, len, NULL, &bo, &l->schema, &errs);
    if (l->sg)
      l->schema = gql_subgraph_schema(l->sg);
    if (rc < 0) {
      gql_cli_print_errors_text(stderr, errs.items, errs.count, r->schema);
      if (!errs.count)
        fprintf(stderr, "%s: %s: %s\n", cmd, r->schema, gql_strerror(rc));
    }
  }
  if (rc >= 0 && r->schema_ready && (rc = r->schema_ready(l->schema)) < 0)
    fprintf(stderr, "%s: cannot set up subscriptions: %s\n", cmd,
            gql_strerror(rc));
  if (rc < 0)
    goto fail;
  const gql_value *root = NULL;
  if (r->data) {
    if (!(root = gql_cli_read_json(l->arena, cmd, r->data, &l->data))) {
      rc = GQL_EINVAL;
      goto fail;
    }
    if (l->sg)
      gql_subgraph_set_json(l->sg, root);
  }
  *out = (gql_http_generation){
      .schema = l->schema, .root_value = root, .ud = l, .release = loaded_free};
  return 0;
fail:
  loaded_free(l);
  return rc < 0 ? rc : GQL_EINVAL;
}

/* gql gateway's supergraph: the generation's schema is its API schema,
 * the executor reads the supergraph from gql_http_exec.generation. */
static int gateway_files(const gql_cli_reload *r, gql_http_generation *out) {
  const char *cmd = r->cmd;
  loaded *l = calloc(1, sizeof *l);
  size_t len = 0;
  if (!l || !(l->arena = gql_arena_new(NULL))) {
    free(l);
    fprintf(stderr, "%s: out of memory\n", cmd);
    return GQL_ENOMEM;
  }
  if (!(l->text = gql_cli_read_file_as(cmd, r->supergraph, &len))) {
    loaded_free(l);
    return GQL_EIO;
  }
  l->text_len = len;
  const char *err = NULL;
  int rc = gql_supergraph_load(l->text, len, &l->supergraph, l->arena, &err);
  if (rc) {
    /* FILE:LINE:COLUMN: message when the reader says where */
    bool at = err && err[0] >= '0' && err[0] <= '9';
    fprintf(stderr, "%s: %s:%s%s\n", cmd, gql_cli_display_name(r->supergraph),
            at ? "" : " ", err ? err : gql_strerror(rc));
    loaded_free(l);
    return rc < 0 ? rc : GQL_EINVAL;
  }
  /* the executor finds the supergraph in ud (gql_cli_generation_supergraph) */
  *out = (gql_http_generation){
      .schema = l->supergraph->api, .ud = l, .release = loaded_free};
  return 0;
}

const gql_supergraph *gql_cli_generation_supergraph(void *ud) {
  return ud ? ((loaded *)ud)->supergraph : NULL;
}

const gql_cfg_headers *gql_cli_generation_headers(void *ud) {
  const gql_cli_live *l = gql_cli_generation_live(ud);
  return l ? &l->st->headers : NULL;
}

/* The settings again, as at start: the file, then the flags over it. */
static gql_settings *reparse(const gql_cli_reload *r) {
  gql_settings *st = gql_cli_settings_load(r->cmd, r->argc, r->argv);
  for (int i = 1; st && i < r->argc; i++) {
    int rc = gql_cli_server_flag(r->cmd, st, r->argc, r->argv, &i);
    if (rc == 0)
      rc = r->flag(st, r->argc, r->argv, &i);
    if (rc <= 0) {
      gql_settings_free(st);
      return NULL;
    }
  }
  return st;
}

static bool same(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_strs(const gql_cfg_strs *a, const gql_cfg_strs *b) {
  if (a->count != b->count)
    return false;
  for (uint32_t i = 0; i < a->count; i++)
    if (!same(a->items[i], b->items[i]))
      return false;
  return true;
}

/* Says which changed settings wait for a restart: those the server, its
 * workers or their long-lived state (connections, Redis, the tracer, the
 * persisted-operation stores) were made with. */
static void warn_fixed(const gql_cli_reload *r, const gql_http_options *o,
                       const gql_settings *st) {
  const gql_http_options *f = &r->first;
  const gql_settings *s0 = r->first_st;
  const gql_cfg_persisted *p = &st->persisted, *p0 = &s0->persisted;
  const gql_cfg_subscription *u = &st->subscription, *u0 = &s0->subscription;
  const gql_cfg_trace *t = &st->trace, *t0 = &s0->trace;
  struct {
    bool changed;
    const char *what;
  } fixed[] = {
      {!same(o->host, f->host) || o->port != f->port ||
           !same(o->unix_path, f->unix_path),
       "the listen address (supergraph.listen)"},
      {o->threads != f->threads, "the thread count (server.threads)"},
      {!same(o->path, f->path), "the endpoint path (supergraph.path)"},
      {r->schema && !same(st->serve.schema, r->schema), "the schema path"},
      {r->data && !same(st->serve.data, r->data), "the data path"},
      {r->supergraph && !same(st->gateway.supergraph, r->supergraph),
       "the supergraph path"},
      {memcmp(&o->parse, &f->parse, sizeof o->parse) != 0 ||
           o->max_plan_size != f->max_plan_size,
       "the parser limits (limits.parser_*, limits.max_fields)"},
      {o->max_connections != f->max_connections,
       "the connection limit (server.max_connections)"},
      {o->cache_bytes != f->cache_bytes ||
           st->gateway.plan_cache_bytes != s0->gateway.plan_cache_bytes,
       "the cache sizes (server.document_cache_bytes, "
       "gateway.plan_cache_bytes)"},
      {st->server.log_format != s0->server.log_format ||
           st->server.metrics != s0->server.metrics ||
           !same(st->server.metrics_path, s0->server.metrics_path),
       "the log format and metrics settings (server.log_format, "
       "server.metrics*)"},
      {p->apq != p0->apq || !same(st->redis_url, s0->redis_url) ||
           st->redis_timeout_ms != s0->redis_timeout_ms,
       "APQ and its store (apq, redis)"},
      /* without the documents hook at start, nothing persisted applies */
      {!f->documents &&
           (p->enabled != p0->enabled || p->log_unknown != p0->log_unknown ||
            p->safelist != p0->safelist || p->require_id != p0->require_id ||
            !same_strs(&p->local_manifests, &p0->local_manifests)),
       "persisted_queries (off at start)"},
      {u->enabled != u0->enabled ||
           u->max_opened_subscriptions != u0->max_opened_subscriptions ||
           u->queue_capacity != u0->queue_capacity ||
           u->max_subscriptions_per_connection !=
               u0->max_subscriptions_per_connection ||
           u->ping_interval_ms != u0->ping_interval_ms ||
           u->init_timeout_ms != u0->init_timeout_ms ||
           u->max_message_bytes != u0->max_message_bytes ||
           u->sse_reservation_ttl_ms != u0->sse_reservation_ttl_ms ||
           !same(u->channel_prefix, u0->channel_prefix) ||
           u->max_event_bytes != u0->max_event_bytes,
       "the subscription settings (subscription)"},
      {!same(t->otlp, t0->otlp) || !same(t->file, t0->file) ||
           t->collapse != t0->collapse || t->depth != t0->depth ||
           t->source != t0->source ||
           !same_strs(&t->variables, &t0->variables) ||
           !same(t->service_name, t0->service_name) ||
           t->timeout_ms != t0->timeout_ms || !same(t->protocol, t0->protocol),
       "the tracing settings (trace)"},
      {st->graphiql != s0->graphiql ||
           !same(st->graphiql_assets, s0->graphiql_assets),
       "the GraphiQL page (graphiql)"},
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(fixed); i++)
    if (fixed[i].changed)
      fprintf(stderr,
              "%s: warning: reload: %s changed; needs a restart (still "
              "serving with the old value)\n",
              r->cmd, fixed[i].what);
}

static int load(void *ud, gql_http_generation *out) {
  gql_cli_reload *r = ud;
  gql_settings *st = reparse(r);
  gql_http_options now = {0};
  if (!st || !gql_cli_http_options(r->cmd, st, &now)) {
    gql_settings_free(st);
    return GQL_EINVAL;
  }
  /* the live settings (and the key sets) before the files: a broken one
   * fails the reload as a broken file does */
  gql_cli_live *live = gql_cli_live_new(r->cmd, st, st, r->serial + 1);
  if (!live)
    return GQL_EINVAL;
  int rc = r->supergraph ? gateway_files(r, out) : serve_files(r, out);
  if (rc < 0) {
    gql_cli_live_free(live);
    return rc;
  }
  loaded *l = out->ud;
  if (l->supergraph)
    gql_cli_warn_subgraph_names(r->cmd, st, l->supergraph);
  /* demand control on the new schema's weights (the gateway's: the
   * supergraph's, which keeps @cost and @listSize) */
  if (!gql_cli_demand_control_init(
          r->cmd, st, l->schema ? l->schema : l->supergraph->api,
          l->supergraph ? l->text : NULL, l->supergraph ? l->text_len : 0,
          &live->dc)) {
    gql_cli_live_free(live);
    loaded_free(l);
    *out = (gql_http_generation){0};
    return GQL_EINVAL;
  }
  /* the manifests and the safelist, under the start's documents hook */
  const gql_http_documents *docs = r->first.documents;
  if (docs &&
      !(live->persisted = gql_cli_persisted_reload(r->cmd, st, docs->ud))) {
    gql_cli_live_free(live);
    loaded_free(l);
    *out = (gql_http_generation){0};
    return GQL_EINVAL;
  }
  warn_fixed(r, &now, st);
  /* the server's live options (log level, HTTP limits, timeouts) apply at
   * once, before "reloaded" is logged at the new level; the command's own
   * lines (gql_cli_log) read its options' level */
  __atomic_store_n(&r->opts->log_level, now.log_level, __ATOMIC_RELAXED);
  gql_http_server_update(r->server, &now);
  l->live = live;
  r->serial = live->serial;
  out->max_depth = now.max_depth;
  out->max_height = now.max_height;
  out->max_aliases = now.max_aliases;
  out->max_root_fields = now.max_root_fields;
  out->no_introspection = now.no_introspection;
  return 0;
}

int gql_cli_reload_first(gql_cli_reload *r, gql_http_generation *out) {
  return r->supergraph ? gateway_files(r, out) : serve_files(r, out);
}

void gql_cli_reload_init(gql_cli_reload *r, const gql_settings *st,
                         gql_http_options *o) {
  memcpy(&r->first, o, sizeof r->first);
  r->opts = o;
  r->first_st = st;
  r->serial = 1; /* the first generation's: gql_cli_hooks.first */
  r->config = st->file;
  unsigned n = 0;
  const char *files[] = {r->schema, r->data, r->supergraph, r->config};
  for (size_t i = 0; i < GQL_ARRAY_LEN(files); i++)
    if (files[i])
      r->watch[n++] = files[i];
  /* the key sets' files: a rotated key reloads (a url that is not a file
   * is refused at start) */
  for (uint32_t i = 0; i < st->jwt.njwks && n < GQL_ARRAY_LEN(r->watch); i++)
    if (strncmp(st->jwt.jwks[i].url, "file://", 7) == 0)
      r->watch[n++] = st->jwt.jwks[i].url + 7;
  r->rl = (gql_http_reload){.ud = r,
                            .load = load,
                            .watch = r->watch,
                            .nwatch = n,
                            .debounce_ms = r->debounce_ms};
}
