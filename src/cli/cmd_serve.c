/* gql serve: GraphQL over HTTP for the built-in Star Wars demo or for a
 * schema over a JSON document (default resolvers). */
#include "cli.h"
#include "federation/subgraph.h"
#include "gql_http.h"
#include "schema/schema.h"

#include "../../examples/starwars/starwars.h"

#include <stdlib.h>

static const char usage[] =
    "Usage: gql serve [OPTIONS]\n"
    "       gql serve --schema SCHEMA.graphql --data DATA.json [OPTIONS]\n"
    "       gql serve --subgraph --schema SUBGRAPH.graphql [--data "
    "DATA.json]\n\n"
    "Serves GraphQL over HTTP on http://HOST:PORT/graphql (POST "
    "application/json\n"
    "or GET with query parameters) and answers GET /health. Without --schema\n"
    "it serves the built-in Star Wars demo. SIGINT or SIGTERM stop it after\n"
    "the requests in flight.\n\n"
    "Options:\n"
    "  --schema FILE          the schema SDL\n"
    "  --data FILE            the root value as JSON (fields resolve to the\n"
    "                         properties named after them)\n"
    "  --subgraph             serve the schema as an Apollo Federation\n"
    "                         subgraph: adds _service { sdl } and\n"
    "                         _entities(representations:); an entity of type\n"
    "                         T is the object of the array \"T\" in DATA\n"
    "                         equal to the representation on one of T's\n"
    "                         @key field sets (no array: the representation)\n"
    "  --host HOST            address to listen on (default 127.0.0.1)\n"
    "  --port PORT            port (default 4000; 0: any free port)\n"
    "  --threads N            worker threads (default: one per core)\n"
    "  --max-body BYTES       request body limit (default 1048576) -> 413\n"
    "  --max-header-bytes N   request line + headers limit (default 16384)\n"
    "  --max-headers N        header count limit (default 100) -> 431\n"
    "  --max-depth N          query nesting limit (default 256)\n"
    "  --max-tokens N         query token limit (default 100000)\n"
    "  --max-fields N         planned fields limit (default 100000)\n"
    "  --max-connections N    open connections limit (default 10000)\n"
    "  --idle-timeout MS      keep-alive idle timeout (default 30000)\n"
    "  --request-timeout MS   time for a request's bytes to arrive (default "
    "10000)\n"
    "  --cache-bytes BYTES    document cache per thread (default 16777216)\n"
    "  --log-level LEVEL      error|warn|info|debug (default warn; info adds\n"
    "                         an access-log line per request)\n\n"
    "Tracing (a trace per GraphQL request; GET /metrics shows the tracer's\n"
    "counters; at exit a line on stderr: 'trace: N spans queued, N exported,\n"
    "N dropped, N export errors, N unsent'):\n"
    "  --trace-otlp URL       send spans over OTLP/HTTP to URL, e.g.\n"
    "                         http://127.0.0.1:4318/v1/traces (http only)\n"
    "  --trace-otlp-protocol http/json|http/protobuf\n"
    "                         the encoding sent to the collector (default\n"
    "                         $OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else\n"
    "                         $OTEL_EXPORTER_OTLP_PROTOCOL, else http/json);\n"
    "                         --trace-file always writes JSON\n"
    "  --trace-file PATH      append spans to PATH, one OTLP JSON batch a "
    "line\n"
    "  --trace-collapse on|off  one span per field path, list indices as *\n"
    "                         (default on)\n"
    "  --trace-depth N        resolve spans N named fields deep (default -1:\n"
    "                         unlimited; 0: execute span only)\n"
    "  --trace-source         graphql.source / graphql.document tags\n"
    "  --trace-variables a,b  tag these variables (graphql.variables.NAME)\n"
    "  --trace-service NAME   resource service.name (default "
    "$OTEL_SERVICE_NAME,\n"
    "                         else gql)\n"
    "  --trace-timeout MS     per export attempt to the collector (default\n"
    "                         $OTEL_EXPORTER_OTLP_TIMEOUT, else 10000); 3\n"
    "                         attempts; a stop waits at most 4 times this for\n"
    "                         the queue to drain\n";

/* Where the spans go: the collector, the file, or both. */
typedef struct trace_sinks {
  gql_trace_http http;
  bool has_http;
  FILE *file;
} trace_sinks;

static int sinks_transport(void *ud, const char *json, size_t len) {
  trace_sinks *k = ud;
  int rc = 0;
  if (k->file && gql_trace_file_transport(k->file, json, len) < 0)
    rc = GQL_EIO;
  if (k->has_http && gql_trace_http_transport(&k->http, json, len) < 0)
    rc = GQL_EIO;
  return rc;
}

static int run(int argc, char **argv) {
  const char *schema_path = NULL, *data_path = NULL;
  gql_http_options o = {0};
  bool subgraph = false, trace_source = false;
  const char *trace_otlp = NULL, *trace_path = NULL, *trace_collapse = NULL,
             *trace_depth = NULL, *trace_vars = NULL, *trace_service = NULL,
             *trace_protocol = NULL;
  unsigned long long trace_timeout = 0;
  for (int i = 1; i < argc; i += 2) { /* OPTION VALUE pairs */
    const char *a = argv[i];
    if (strcmp(a, "--subgraph") == 0) { /* the flags without a value */
      subgraph = true;
      i--;
      continue;
    }
    if (strcmp(a, "--trace-source") == 0) {
      trace_source = true;
      i--;
      continue;
    }
    if (i + 1 >= argc && a[0] == '-') {
      fprintf(stderr, "gql serve: %s needs a value\n\n%s", a, usage);
      return 2;
    }
    const char *v = argv[i + 1 < argc ? i + 1 : i];
    unsigned long long n = 0;
    bool ok = true;
    if (strcmp(a, "--schema") == 0) {
      schema_path = v;
    } else if (strcmp(a, "--data") == 0) {
      data_path = v;
    } else if (strcmp(a, "--host") == 0) {
      o.host = v;
    } else if (strcmp(a, "--port") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, 65535, &n);
      o.port = n == 0 ? -1 : (int)n;
    } else if (strcmp(a, "--threads") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, 256, &n);
      o.threads = (unsigned)n;
    } else if (strcmp(a, "--max-body") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, (size_t)1 << 32, &n) && n > 0;
      o.max_body = n;
    } else if (strcmp(a, "--max-header-bytes") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, 1 << 24, &n) && n > 0;
      o.max_header_bytes = n;
    } else if (strcmp(a, "--max-headers") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, 100000, &n) && n > 0;
      o.max_headers = (unsigned)n;
    } else if (strcmp(a, "--max-depth") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, 100000, &n) && n > 0;
      o.parse.max_depth = (uint32_t)n;
    } else if (strcmp(a, "--max-tokens") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, UINT32_MAX, &n) && n > 0;
      o.parse.max_tokens = (uint32_t)n;
    } else if (strcmp(a, "--max-fields") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, UINT32_MAX, &n) && n > 0;
      o.max_plan_size = (uint32_t)n;
    } else if (strcmp(a, "--max-connections") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, 1000000, &n) && n > 0;
      o.max_connections = (unsigned)n;
    } else if (strcmp(a, "--idle-timeout") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, 86400000, &n) && n > 0;
      o.idle_timeout_ms = (unsigned)n;
    } else if (strcmp(a, "--request-timeout") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, 86400000, &n) && n > 0;
      o.request_timeout_ms = (unsigned)n;
    } else if (strcmp(a, "--cache-bytes") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, (size_t)1 << 40, &n) && n > 0;
      o.cache_bytes = n;
    } else if (strcmp(a, "--trace-otlp") == 0) {
      trace_otlp = v;
    } else if (strcmp(a, "--trace-file") == 0) {
      trace_path = v;
    } else if (strcmp(a, "--trace-otlp-protocol") == 0) {
      trace_protocol = v;
      ok = gql_cli_otlp_protocol(v, NULL);
      if (!ok)
        fprintf(stderr, "gql serve: --trace-otlp-protocol takes http/json or "
                        "http/protobuf\n");
    } else if (strcmp(a, "--trace-collapse") == 0) {
      ok = gql_cli_trace_collapse_ok(v);
      trace_collapse = v;
      if (!ok)
        fprintf(stderr, "gql serve: --trace-collapse takes on or off\n");
    } else if (strcmp(a, "--trace-depth") == 0) {
      ok = gql_cli_trace_depth_ok(v);
      trace_depth = v;
      if (!ok)
        fprintf(stderr,
                "gql serve: --trace-depth takes a number (-1: unlimited)\n");
    } else if (strcmp(a, "--trace-variables") == 0) {
      trace_vars = v;
    } else if (strcmp(a, "--trace-service") == 0) {
      ok = *v != 0;
      trace_service = v;
    } else if (strcmp(a, "--trace-timeout") == 0) {
      ok = gql_cli_parse_num("gql serve", a, v, 600000, &trace_timeout) &&
           trace_timeout > 0;
    } else if (strcmp(a, "--log-level") == 0) {
      static const char *const levels[] = {"error", "warn", "info", "debug"};
      ok = false;
      for (int l = 0; l < 4; l++)
        if (strcmp(v, levels[l]) == 0) {
          o.log_level = (gql_http_log_level)l;
          o.log_level_set = ok = true;
        }
      if (!ok)
        fprintf(stderr, "gql serve: unknown log level '%s'\n", v);
    } else {
      fprintf(stderr, "gql serve: unknown argument %s\n\n%s", a, usage);
      return 2;
    }
    if (!ok) {
      fprintf(stderr, "gql serve: bad value for %s\n", a);
      return 2;
    }
  }
  if (subgraph && !schema_path) {
    fprintf(stderr, "gql serve: --subgraph needs --schema\n");
    return 2;
  }
  if (data_path && !schema_path) {
    fprintf(stderr, "gql serve: --data needs --schema\n");
    return 2;
  }
  bool tracing = trace_otlp || trace_path;
  if (!tracing &&
      (trace_collapse || trace_depth || trace_source || trace_vars ||
       trace_service || trace_timeout || trace_protocol)) {
    fprintf(stderr, "gql serve: trace options need --trace-otlp or "
                    "--trace-file\n");
    return 2;
  }
  if (trace_protocol && !trace_otlp) {
    fprintf(stderr, "gql serve: --trace-otlp-protocol needs --trace-otlp\n");
    return 2;
  }
  trace_sinks sinks = {0};
  if (trace_otlp) {
    if (gql_trace_http_init(&sinks.http, trace_otlp) < 0) {
      fprintf(stderr,
              "gql serve: --trace-otlp takes http://HOST[:PORT][/PATH], "
              "not '%s'\n",
              trace_otlp);
      return 2;
    }
    sinks.has_http = true;
    const char *env = getenv("OTEL_EXPORTER_OTLP_TIMEOUT");
    unsigned long long ms = 0;
    if (!trace_timeout && env && *env &&
        gql_cli_parse_num("gql serve", "OTEL_EXPORTER_OTLP_TIMEOUT", env,
                          600000, &ms) &&
        ms)
      trace_timeout = ms;
    sinks.http.timeout_ms = trace_timeout ? (uint32_t)trace_timeout : 10000;
    sinks.http.retries = 2;
    const char *penv = getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL");
    if (!penv || !*penv)
      penv = getenv("OTEL_EXPORTER_OTLP_PROTOCOL");
    const char *proto = trace_protocol ? trace_protocol : penv;
    if (proto && *proto &&
        !gql_cli_otlp_protocol(proto, &sinks.http.protocol)) {
      fprintf(stderr,
              "gql serve: OTEL_EXPORTER_OTLP_PROTOCOL: '%s' is not "
              "http/json or http/protobuf\n",
              proto);
      return 2;
    }
  }
  if (sinks.http.protocol == GQL_OTLP_HTTP_PROTOBUF && trace_path) {
    fprintf(stderr, "gql serve: --trace-file writes JSON: it cannot go with "
                    "the http/protobuf protocol\n");
    return 2;
  }
  gql_trace_options to;
  char *vars_copy;
  const char *allow[64];
  if (gql_cli_trace_options(&to, trace_source, trace_collapse, trace_depth,
                            trace_vars, &vars_copy, allow) < 0)
    return 1;
  gql_tracer *tracer = NULL;
  int status = 1;
  gql_schema *schema = NULL;
  gql_subgraph *sg = NULL;
  gql_http_server *srv = NULL;
  gql_arena *arena = gql_arena_new(NULL);
  char *sdl = NULL, *data = NULL;
  size_t sdl_len = 0;
  if (!arena)
    goto done;
  if (!schema_path) {
    if (gql_starwars_schema(&schema) < 0) {
      fprintf(stderr, "gql serve: cannot build the Star Wars example\n");
      goto done;
    }
  } else {
    if (!(sdl = gql_cli_read_file(schema_path, &sdl_len)))
      goto done;
    gql_error_list errs;
    gql_error_list_init(&errs, arena, 100);
    int rc = subgraph
                 ? gql_subgraph_build(sdl, sdl_len, NULL, &sg, &errs)
                 : gql_schema_build(sdl, sdl_len, NULL, NULL, &schema, &errs);
    if (sg)
      schema = gql_subgraph_schema(sg);
    if (rc < 0) {
      gql_cli_print_errors_text(stderr, errs.items, errs.count, schema_path);
      if (!errs.count)
        fprintf(stderr, "gql serve: %s: %s\n", schema_path, gql_strerror(rc));
      goto done;
    }
  }
  if (data_path) {
    const gql_value *root =
        gql_cli_read_json(arena, "gql serve", data_path, &data);
    if (!root)
      goto done;
    o.root_value = root;
    if (sg)
      gql_subgraph_set_json(sg, root);
  }
  if (tracing) {
    if (trace_path && !(sinks.file = fopen(trace_path, "a"))) {
      fprintf(stderr, "gql serve: cannot open %s\n", trace_path);
      goto done;
    }
    const char *svc = getenv("OTEL_SERVICE_NAME");
    uint32_t attempt_ms = sinks.has_http ? sinks.http.timeout_ms : 0;
    gql_tracer_config tc = {
        .service_name = trace_service ? trace_service
                        : svc && *svc ? svc
                                      : "gql",
        .transport = sinks_transport,
        .transport_ud = &sinks,
        .protocol = sinks.http.protocol,
        /* three attempts of the batch being sent, one more for the rest */
        .flush_timeout_ms = attempt_ms ? 4 * attempt_ms : 0};
    if (gql_tracer_new(&tc, &tracer) < 0) {
      fprintf(stderr, "gql serve: cannot start tracing\n");
      goto done;
    }
    o.tracer = tracer;
    o.trace_options = &to;
  }
  char banner[512];
  snprintf(banner, sizeof banner, "gql serve: serving %s%s",
           sg ? "the subgraph " : "",
           schema_path ? schema_path : "the Star Wars demo");
  o.banner = banner;
  int rc = gql_http_server_new(schema, &o, &srv);
  if (rc < 0) {
    fprintf(stderr, "gql serve: %s\n", gql_strerror(rc));
    goto done;
  }
  rc = gql_http_server_run(srv); /* flushes the tracer */
  status = rc < 0 ? 1 : 0;
done:
  gql_http_server_free(srv);
  if (tracer) {
    gql_tracer_stats st;
    gql_tracer_stats_get(tracer, &st);
    fprintf(stderr,
            "gql serve: trace: %llu spans queued, %llu exported, %llu "
            "dropped, %llu export errors, %llu unsent\n",
            (unsigned long long)st.queued, (unsigned long long)st.exported,
            (unsigned long long)st.dropped, (unsigned long long)st.failed,
            (unsigned long long)st.pending);
    gql_tracer_free(tracer);
  }
  if (sinks.file)
    fclose(sinks.file);
  free(vars_copy);
  if (sg)
    gql_subgraph_free(sg); /* it owns the schema */
  else
    gql_schema_free(schema);
  gql_arena_free(arena);
  free(sdl);
  free(data);
  return status;
}

const gql_cli_command gql_cmd_serve = {
    .name = "serve",
    .summary = "serve GraphQL over HTTP (the Star Wars demo by default)",
    .usage = usage,
    .run = run,
};
