#include "cli.h"
#include "gateway/gateway.h"
#include "gateway/serve.h"

#include <stdlib.h>

/* Serves the API schema, executing requests through the subgraphs. */
static int serve(const gql_supergraph *sg, gql_http_options *o,
                 const gql_gw_serve_options *so, const char *sg_path) {
  gql_gw_executor ge;
  gql_gw_executor_init(&ge, sg, so);
  o->executor = &ge.ex;
  char banner[512];
  snprintf(banner, sizeof banner, "gql gateway: serving %s",
           gql_cli_display_name(sg_path));
  o->banner = banner;
  o->log_name = "gql gateway";
  gql_http_server *srv = NULL;
  int rc = gql_http_server_new(sg->api, o, &srv);
  if (rc < 0) {
    fprintf(stderr, "gql gateway: %s\n", gql_strerror(rc));
    return 1;
  }
  rc = gql_http_server_run(srv);
  gql_http_server_free(srv);
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
  char *query = gql_cli_read_file(path, &len);
  if (!query)
    return 1;
  int status = 1;
  gql_prepared *prep = NULL;
  gql_str errors_json = {NULL, 0};
  int rc = gql_prepare(sg->api, query, len, op_name, NULL, &prep, arena,
                       &errors_json);
  gql_prepared_free(prep);
  if (rc) {
    if (errors_json.ptr)
      fprintf(stderr, "%.*s\n", (int)errors_json.len, errors_json.ptr);
    else
      fprintf(stderr, "gql gateway: %s\n", gql_strerror(rc));
    goto done;
  }
  gql_document *doc;
  gql_syntax_error se;
  if (gql_parse(arena, query, len, NULL, &doc, &se))
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

static int run(int argc, char **argv) {
  const char *sg_path = NULL, *plan_path = NULL, *op_name = NULL;
  bool print_api = false;
  gql_http_options o = {0};
  gql_gw_serve_options so = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    unsigned long long n = 0;
    if (i + 1 < argc &&
        (strcmp(a, "--port") == 0 || strcmp(a, "--threads") == 0 ||
         strcmp(a, "--subgraph-timeout") == 0 ||
         strcmp(a, "--connect-timeout") == 0 ||
         strcmp(a, "--max-subgraph-connections") == 0)) {
      if (!gql_cli_parse_num("gql gateway", a, argv[++i],
                             strcmp(a, "--port") == 0 ? 65535 : 3600000, &n))
        return 2;
      if (strcmp(a, "--port") == 0)
        o.port = n == 0 ? -1 : (int)n;
      else if (strcmp(a, "--threads") == 0)
        o.threads = n > 256 ? 256 : (unsigned)n;
      else if (strcmp(a, "--subgraph-timeout") == 0)
        so.client.request_timeout_ms = (unsigned)n;
      else if (strcmp(a, "--connect-timeout") == 0)
        so.client.connect_timeout_ms = (unsigned)n;
      else
        so.client.max_connections = (unsigned)n;
      continue;
    }
    if (i + 1 < argc && (strcmp(a, "--plan-cache-bytes") == 0 ||
                         strcmp(a, "--cache-bytes") == 0)) {
      if (!gql_cli_parse_num("gql gateway", a, argv[++i], (size_t)1 << 40, &n))
        return 2;
      if (n == 0)
        return usage_error("a cache needs at least 1 byte");
      if (strcmp(a, "--cache-bytes") == 0)
        o.cache_bytes = n;
      else
        so.plan_cache_bytes = n;
      continue;
    }
    if (strcmp(a, "--host") == 0 && i + 1 < argc) {
      o.host = argv[++i];
      continue;
    }
    if (strcmp(a, "--log-level") == 0 && i + 1 < argc) {
      static const char *const levels[] = {"error", "warn", "info", "debug"};
      const char *v = argv[++i];
      o.log_level_set = false;
      for (int l = 0; l < 4; l++)
        if (strcmp(v, levels[l]) == 0) {
          o.log_level = (gql_http_log_level)l;
          o.log_level_set = true;
        }
      if (!o.log_level_set)
        return usage_error("--log-level needs error, warn, info or debug");
      continue;
    }
    if (strcmp(argv[i], "--supergraph") == 0 && i + 1 < argc) {
      sg_path = argv[++i];
    } else if (strcmp(argv[i], "--plan") == 0 && i + 1 < argc) {
      plan_path = argv[++i];
    } else if (strcmp(argv[i], "--operation") == 0 && i + 1 < argc) {
      op_name = argv[++i];
    } else if (strcmp(argv[i], "--print-api-schema") == 0) {
      print_api = true;
    } else {
      fprintf(stderr, "gql gateway: unknown option '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!sg_path)
    return usage_error("--supergraph FILE is required");
  size_t len;
  char *sdl = gql_cli_read_file(sg_path, &len);
  if (!sdl)
    return 1;
  gql_arena *arena = gql_arena_new(NULL);
  gql_supergraph *sg = NULL;
  const char *err = NULL;
  int status = 0;
  int rc = arena ? gql_supergraph_load(sdl, len, &sg, arena, &err) : GQL_ENOMEM;
  if (rc) {
    fprintf(stderr, "gql gateway: %s: %s\n", gql_cli_display_name(sg_path),
            err ? err : gql_strerror(rc));
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
  if (!print_api && !plan_path)
    status = serve(sg, &o, &so, sg_path);
done:
  gql_supergraph_free(sg);
  gql_arena_free(arena);
  free(sdl);
  return status;
}

const gql_cli_command gql_cmd_gateway = {
    "gateway", "federation gateway: serve a supergraph, API schema, plans",
    "Usage: gql gateway --supergraph FILE [--host HOST] [--port PORT]\n"
    "                   [--threads N] [--subgraph-timeout MS]\n"
    "                   [--connect-timeout MS] [--max-subgraph-connections N]\n"
    "                   [--plan-cache-bytes BYTES] [--cache-bytes BYTES]\n"
    "                   [--log-level LEVEL]\n"
    "       gql gateway --supergraph FILE [--print-api-schema]\n"
    "                   [--plan QUERY_FILE [--operation NAME]]\n\n"
    "Reads an Apollo Federation v2 supergraph (join v0.3). Without\n"
    "--print-api-schema or --plan it serves the API schema over HTTP like\n"
    "gql serve (POST/GET http://HOST:PORT/graphql, default 127.0.0.1:4000),\n"
    "running each request along its cached plan against the subgraphs at\n"
    "their @join__graph(url:) over pooled keep-alive HTTP/1.1 connections.\n"
    "A subgraph that fails (down, timeout, reset, bad JSON, HTTP error)\n"
    "gives null fields with an error; the rest of the response stands.\n\n"
    "  --subgraph-timeout MS  time for a subgraph's answer (default 10000)\n"
    "  --connect-timeout MS   time to connect to a subgraph (default 2000)\n"
    "  --max-subgraph-connections N  per subgraph and thread (default 128)\n"
    "  --plan-cache-bytes BYTES  query plans kept per thread, least recently\n"
    "                      used out first (default 67108864)\n"
    "  --cache-bytes BYTES validated documents kept per thread (default\n"
    "                      16777216)\n"
    "  --print-api-schema  print the client-facing API schema (join and link\n"
    "                      machinery removed, @inaccessible parts hidden)\n"
    "  --plan QUERY_FILE   validate the operation against the API schema and\n"
    "                      print its query plan: the subgraph requests by\n"
    "                      wave, entity fetches batched per subgraph\n"
    "  --operation NAME    the operation to plan when the file has several\n",
    run};
