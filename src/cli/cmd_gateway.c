#include "cli.h"
#include "gateway/gateway.h"
#include "gateway/serve.h"

#include <stdlib.h>

static int reload_flag(gql_settings *st, int argc, char **argv, int *i);

/* Serves the API schema, executing requests through the subgraphs. */
static int serve(gql_settings *st, const gql_supergraph *sg,
                 gql_http_options *o, gql_gw_serve_options *so,
                 const char *sg_path, int argc, char **argv) {
  /* the supergraph, loaded again on SIGHUP or when it changes (reload.c) */
  gql_cli_reload rl = {.cmd = "gql gateway",
                       .argc = argc,
                       .argv = argv,
                       .flag = reload_flag,
                       .supergraph = sg_path};
  gql_cli_reload_init(&rl, st, o);
  o->reload = &rl.rl;
  so->supergraph_of = gql_cli_generation_supergraph;
  gql_cli_tracing tracing;
  int rc = gql_cli_tracing_start("gql gateway", st, &tracing);
  if (rc) {
    gql_cli_tracing_stop("gql gateway", &tracing);
    return rc;
  }
  if (tracing.tracer) { /* spans: request, plan, each subgraph fetch */
    o->tracer = tracing.tracer;
    o->trace_options = &tracing.options;
  }
  gql_cli_observer obs;
  if (gql_cli_observer_init(&obs, st, "gql gateway", true, tracing.tracer) <
      0) {
    fprintf(stderr, "gql gateway: cannot set up metrics\n");
    gql_cli_tracing_stop("gql gateway", &tracing);
    return 1;
  }
  so->metrics = obs.metrics ? &obs.sm : NULL;
  gql_gw_executor ge;
  if (gql_gw_executor_init(&ge, sg, so) < 0) {
    gql_cli_observer_free(&obs);
    gql_cli_tracing_stop("gql gateway", &tracing);
    return 1;
  }
  obs.ready = gql_gw_executor_ready;
  obs.ready_ud = &ge;
  o->executor = &ge.ex;
  o->observer = &obs.ob;
  char banner[512];
  snprintf(banner, sizeof banner, "gql gateway: serving %s",
           gql_cli_display_name(sg_path));
  o->banner = banner;
  o->log_name = "gql gateway";
  o->error_codes = true; /* as Apollo Router words them */
  gql_http_server *srv = NULL;
  rc = gql_http_server_new(sg->api, o, &srv);
  if (rc < 0) {
    fprintf(stderr, "gql gateway: %s\n", gql_strerror(rc));
  } else {
    rl.server = srv;
    rc = gql_http_server_run(srv); /* flushes the tracer */
  }
  gql_http_server_free(srv);
  gql_gw_executor_free(&ge);
  gql_cli_observer_free(&obs);
  gql_cli_tracing_stop("gql gateway", &tracing);
  return rc < 0 ? 1 : 0;
}

static int usage_error(const char *msg) {
  fprintf(stderr, "gql gateway: %s\n", msg);
  return 2;
}

/* Validates and plans the operation in `path`, printing the plan. */
static int print_plan(const gql_supergraph *sg, const char *path,
                      const char *op_name, gql_arena *arena) {
  size_t len;
  char *query = gql_cli_read_file_as("gql gateway", path, &len);
  if (!query)
    return 1;
  int status = 1;
  gql_prepared *prep = NULL;
  gql_errors errors = {.arena = arena};
  int rc = gql_prepare(sg->api, query, len, op_name, NULL, &prep, &errors);
  gql_prepared_free(prep);
  gql_str errors_json = {NULL, 0};
  if (rc) {
    if (errors.count &&
        gql_errors_response(&errors, NULL, arena, &errors_json) == 0)
      fprintf(stderr, "%.*s\n", (int)errors_json.len, errors_json.ptr);
    else
      fprintf(stderr, "gql gateway: %s\n", gql_strerror(rc));
    goto done;
  }
  gql_document *doc;
  gql_syntax_error se;
  if (gql_parse_syntax(arena, query, len, NULL, &doc, &se))
    goto done;
  gql_gw_plan *plan;
  const char *err = NULL;
  rc = gql_gw_plan_build(sg, doc, op_name, arena, &plan, &err);
  if (rc) {
    fprintf(stderr, "gql gateway: cannot plan: %s\n",
            err ? err : gql_strerror(rc));
    goto done;
  }
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_gw_plan_print(plan, &out);
  fwrite(out.data, 1, out.len, stdout);
  gql_buf_free(&out);
  status = 0;
done:
  free(query);
  return status;
}

/* The flags of gql gateway alone (the shared ones are in settings.c). */
static int gateway_flag(gql_settings *st, int argc, char **argv, int *i,
                        const char **plan_path, const char **op_name,
                        bool *print_api) {
  static const char cmd[] = "gql gateway";
  const char *a = argv[*i];
  if (strcmp(a, "--print-api-schema") == 0) {
    *print_api = true;
    return 1;
  }
  static const char *const with_value[] = {
      "--supergraph",      "--plan",
      "--operation",       "--subgraph-timeout",
      "--connect-timeout", "--max-subgraph-connections",
      "--plan-cache-bytes"};
  const char *v;
  int taken = gql_cli_take_value(cmd, argc, argv, i, with_value,
                                 GQL_ARRAY_LEN(with_value), &v);
  if (taken <= 0)
    return taken;
  unsigned long long n = 0;
  if (strcmp(a, "--supergraph") == 0)
    st->gateway.supergraph = v;
  else if (strcmp(a, "--plan") == 0)
    *plan_path = v;
  else if (strcmp(a, "--operation") == 0)
    *op_name = v;
  else if (!gql_cli_parse_num(
               cmd, a, v,
               strcmp(a, "--plan-cache-bytes") == 0 ? (size_t)1 << 40 : 3600000,
               &n))
    return -1;
  else if (n == 0) {
    fprintf(stderr, "%s: %s needs a number from 1, not 0\n", cmd, a);
    return -1;
  } else if (strcmp(a, "--plan-cache-bytes") == 0)
    st->gateway.plan_cache_bytes = n;
  else if (strcmp(a, "--subgraph-timeout") == 0)
    st->gateway.subgraph_timeout_ms = n;
  else if (strcmp(a, "--connect-timeout") == 0)
    st->gateway.connect_timeout_ms = n;
  else
    st->gateway.max_subgraph_connections = (uint32_t)n;
  return 1;
}

/* The subgraph client options of a generation's settings (hot reload). */
static void client_of(void *generation, gql_gw_client_options *co) {
  const gql_cli_live *l = gql_cli_generation_live(generation);
  if (!l)
    return;
  co->request_timeout_ms = (unsigned)l->st->gateway.subgraph_timeout_ms;
  co->connect_timeout_ms = (unsigned)l->st->gateway.connect_timeout_ms;
  co->max_connections = l->st->gateway.max_subgraph_connections;
}

/* The subscription section of a generation's settings (hot reload: its
 * mode, each subgraph's subscription protocol). */
static const gql_cfg_subscription *subscription_mode_of(void *generation) {
  const gql_cli_live *l = gql_cli_generation_live(generation);
  return l ? &l->st->subscription : NULL;
}

/* Every flag of gql gateway, to read argv again on a reload. */
static int reload_flag(gql_settings *st, int argc, char **argv, int *i) {
  const char *plan_path = NULL, *op_name = NULL;
  bool print_api = false;
  int rc = gateway_flag(st, argc, argv, i, &plan_path, &op_name, &print_api);
  return rc ? rc : gql_cli_trace_flag("gql gateway", st, argc, argv, i);
}

static int run(int argc, char **argv) {
  static const char cmd[] = "gql gateway";
  const char *plan_path = NULL, *op_name = NULL;
  bool print_api = false;
  gql_http_options o = {0};
  gql_gw_serve_options so = {0};
  gql_settings *st = gql_cli_settings_load(cmd, argc, argv);
  if (!st)
    return 1;
  int bad = 0;
  for (int i = 1; i < argc && !bad; i++) {
    int rc = gql_cli_server_flag(cmd, st, argc, argv, &i);
    if (rc == 0)
      rc = gateway_flag(st, argc, argv, &i, &plan_path, &op_name, &print_api);
    if (rc == 0)
      rc = gql_cli_trace_flag(cmd, st, argc, argv, &i);
    if (rc < 0)
      bad = 2;
    else if (rc == 0)
      bad = gql_cli_unknown_option(cmd, argv[i]);
  }
  if (!bad && !gql_cli_http_options(cmd, st, &o))
    bad = 1;
  so.client.request_timeout_ms = (unsigned)st->gateway.subgraph_timeout_ms;
  so.client.connect_timeout_ms = (unsigned)st->gateway.connect_timeout_ms;
  so.client.max_connections = st->gateway.max_subgraph_connections;
  so.plan_cache_bytes = st->gateway.plan_cache_bytes;
  so.subscription = o.subscription;
  so.headers = &st->headers;
  so.headers_of = gql_cli_generation_headers; /* hot reload */
  so.client_of = client_of;
  so.subscription_mode = &st->subscription;
  so.subscription_mode_of = subscription_mode_of;
  so.claims = gql_cli_request_claims;
  const char *sg_path = st->gateway.supergraph;
  if (!bad && !sg_path)
    bad = usage_error("--supergraph FILE is required");
  if (bad) {
    gql_settings_free(st);
    return bad;
  }
  if (!print_api && !plan_path)
    gql_cli_warn_unapplied(cmd, st, true);
  size_t len;
  char *sdl = gql_cli_read_file_as("gql gateway", sg_path, &len);
  if (!sdl) {
    gql_settings_free(st);
    return 1;
  }
  gql_arena *arena = gql_arena_new(NULL);
  gql_supergraph *sg = NULL;
  const char *err = NULL;
  int status = 0;
  int rc = arena ? gql_supergraph_load(sdl, len, &sg, arena, &err) : GQL_ENOMEM;
  if (rc) {
    /* FILE:LINE:COLUMN: message when the reader says where */
    bool at = err && err[0] >= '0' && err[0] <= '9';
    fprintf(stderr, "gql gateway: %s:%s%s\n", gql_cli_display_name(sg_path),
            at ? "" : " ", err ? err : gql_strerror(rc));
    status = 1;
    goto done;
  }
  if (print_api) {
    const char *text;
    size_t text_len;
    if (gql_schema_print(sg->api, arena, &text, &text_len)) {
      status = 1;
      goto done;
    }
    fwrite(text, 1, text_len, stdout);
    fputc('\n', stdout);
  }
  if (plan_path)
    status = print_plan(sg, plan_path, op_name, arena);
  gql_cli_hooks hooks;
  if (!print_api && !plan_path) {
    gql_cli_warn_subgraph_names(cmd, st, sg);
    if (gql_cli_hooks_init(cmd, st, &hooks, &o)) {
      /* on the API schema's weights */
      if (gql_cli_demand_control_init(cmd, st, sg->api, sdl, len,
                                      &hooks.first->dc))
        status = serve(st, sg, &o, &so, sg_path, argc, argv);
      else
        status = 1;
      gql_cli_hooks_free(&hooks);
    } else {
      status = 1;
    }
  }
done:
  gql_supergraph_free(sg);
  gql_arena_free(arena);
  free(sdl);
  gql_settings_free(st);
  return status;
}

const gql_cli_command gql_cmd_gateway = {
    "gateway", "federation gateway: serve a supergraph, API schema, plans",
    "Usage: gql gateway --supergraph FILE [--config FILE] [--host HOST]\n"
    "                   [--port PORT]\n"
    "                   [--threads N] [--subgraph-timeout MS]\n"
    "                   [--connect-timeout MS] [--max-subgraph-connections N]\n"
    "                   [--plan-cache-bytes BYTES]\n"
    "                   [--log-level LEVEL] [--log-format text|json]\n"
    "                   [--metrics-path PATH] [--no-metrics]\n"
    "                   [--trace-otlp URL] [--trace-* ...]\n"
    "       gql gateway --supergraph FILE [--print-api-schema]\n"
    "                   [--plan QUERY_FILE [--operation NAME]]\n\n"
    "Reads an Apollo Federation v2 supergraph (join v0.3). Without\n"
    "--print-api-schema or --plan it serves the API schema over HTTP like\n"
    "gql serve (POST/GET http://HOST:PORT/graphql, default 127.0.0.1:4000),\n"
    "running each request along its cached plan against the subgraphs at\n"
    "their @join__graph(url:) over pooled keep-alive HTTP/1.1 connections.\n"
    "A subgraph that fails (down, timeout, reset, bad JSON, HTTP error)\n"
    "gives null fields with an error; the rest of the response stands.\n"
    "Subscriptions go over WebSocket (graphql-transport-ws): each is opened\n"
    "to the subgraph owning its root field over graphql-transport-ws, and\n"
    "each event's fields of other subgraphs are fetched as for a query.\n"
    "SIGHUP, or a change to the supergraph or --config file, reloads them\n"
    "without dropping a request (see gql serve --help).\n\n"
    "  --config FILE       a configuration file (YAML; docs/config.md); the\n"
    "                      options override it\n"
    "  --listen ADDR       HOST:PORT or unix:PATH, as for gql serve\n"
    "  --max-body, --max-header-bytes, --max-headers, --max-depth,\n"
    "  --max-tokens, --max-fields, --max-connections, --idle-timeout,\n"
    "  --request-timeout, --shutdown-timeout, --cache-bytes, --log-level,\n"
    "  --log-format, --metrics-path, --no-metrics: as for gql serve (GET\n"
    "                      /ready answers 503 until every subgraph answered\n"
    "                      a probe)\n"
    "  --max-query-depth, --max-height, --max-aliases, --max-root-fields,\n"
    "  --introspection: as for gql serve\n"
    "  --apq, --persisted-queries, --safelist, --safelist-require-id,\n"
    "  --redis, --redis-timeout, --demand-control-*, --graphiql-assets,\n"
    "  --no-graphiql: as for gql serve (costs from the supergraph's @cost\n"
    "                      and @listSize)\n"
    "  --trace-otlp, --trace-file, --trace-otlp-protocol, --trace-service,\n"
    "  --trace-timeout, ...: as for gql serve; spans for the request, its\n"
    "                      plan and each subgraph fetch (subgraph name, URL,\n"
    "                      status, bytes), traceparent sent to subgraphs\n"
    "  --subgraph-timeout MS  time for a subgraph's answer (default 10000)\n"
    "  --connect-timeout MS   time to connect to a subgraph (default 2000)\n"
    "  --max-subgraph-connections N  per subgraph and thread (default 128)\n"
    "  --plan-cache-bytes BYTES  query plans kept per thread, least recently\n"
    "                      used out first (default 64 MiB)\n"
    "  --print-api-schema  print the client-facing API schema (join and link\n"
    "                      machinery removed, @inaccessible parts hidden)\n"
    "  --plan QUERY_FILE   validate the operation against the API schema and\n"
    "                      print its query plan: the subgraph requests by\n"
    "                      wave, entity fetches batched per subgraph\n"
    "  --operation NAME    the operation to plan when the file has several\n",
    run};
