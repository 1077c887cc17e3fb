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
    "  --config FILE          a configuration file (YAML; docs/config.md);\n"
    "                         the options below override it\n"
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

static int serve(gql_settings *st);

/* The flags of gql serve alone (the shared ones are in settings.c). */
static int serve_flag(gql_settings *st, int argc, char **argv, int *i) {
  static const char cmd[] = "gql serve";
  const char *a = argv[*i];
  gql_cfg_trace *t = &st->trace;
  if (strcmp(a, "--subgraph") == 0) { /* the flags without a value */
    st->serve.subgraph = GQL_CFG_TRUE;
    return 1;
  }
  if (strcmp(a, "--trace-source") == 0) {
    t->source = GQL_CFG_TRUE;
    return 1;
  }
  static const char *const with_value[] = {
      "--schema",          "--data",
      "--trace-otlp",      "--trace-file",
      "--trace-collapse",  "--trace-depth",
      "--trace-variables", "--trace-service",
      "--trace-timeout",   "--trace-otlp-protocol"};
  const char *v;
  int taken = gql_cli_take_value(cmd, argc, argv, i, with_value,
                                 GQL_ARRAY_LEN(with_value), &v);
  if (taken <= 0)
    return taken;
  unsigned long long n = 0;
  if (strcmp(a, "--schema") == 0) {
    st->serve.schema = v;
  } else if (strcmp(a, "--data") == 0) {
    st->serve.data = v;
  } else if (strcmp(a, "--trace-otlp") == 0) {
    t->otlp = v;
  } else if (strcmp(a, "--trace-file") == 0) {
    t->file = v;
  } else if (strcmp(a, "--trace-otlp-protocol") == 0) {
    if (!gql_cli_otlp_protocol(v, NULL)) {
      fprintf(stderr,
              "%s: --trace-otlp-protocol takes http/json or http/protobuf\n",
              cmd);
      return -1;
    }
    t->protocol = v;
  } else if (strcmp(a, "--trace-collapse") == 0) {
    if (!gql_cli_trace_collapse_ok(v)) {
      fprintf(stderr, "%s: --trace-collapse takes on or off\n", cmd);
      return -1;
    }
    t->collapse = strcmp(v, "on") == 0 ? GQL_CFG_TRUE : GQL_CFG_FALSE;
  } else if (strcmp(a, "--trace-depth") == 0) {
    if (!gql_cli_trace_depth_ok(v)) {
      fprintf(stderr, "%s: --trace-depth takes a number (-1: unlimited)\n",
              cmd);
      return -1;
    }
    t->depth = (int32_t)strtol(v, NULL, 10);
    t->depth_set = true;
  } else if (strcmp(a, "--trace-variables") == 0) {
    const char **one = gql_arena_alloc(st->arena, sizeof(char *));
    if (!one)
      return -1;
    one[0] = v; /* "a,b": split on commas when the options are made */
    t->variables = (gql_cfg_strs){one, 1, true};
  } else if (strcmp(a, "--trace-service") == 0) {
    if (!*v) {
      fprintf(stderr, "%s: --trace-service needs a name\n", cmd);
      return -1;
    }
    t->service_name = v;
  } else {
    if (!gql_cli_parse_num(cmd, a, v, 600000, &n) || n == 0)
      return -1;
    t->timeout_ms = n;
  }
  return 1;
}

/* The trace variables as one "a,b" list (the file's list joined). */
static const char *trace_vars_text(gql_settings *st) {
  const gql_cfg_strs *v = &st->trace.variables;
  if (!v->set)
    return NULL;
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (uint32_t i = 0; i < v->count; i++) {
    if (i)
      gql_buf_putc(&b, ',');
    gql_buf_puts(&b, v->items[i]);
  }
  const char *s = gql_settings_strdup(st, b.data ? gql_buf_cstr(&b) : "");
  gql_buf_free(&b);
  return s;
}

static int run(int argc, char **argv) {
  static const char cmd[] = "gql serve";
  gql_settings *st = gql_cli_settings_load(cmd, argc, argv);
  if (!st)
    return 1;
  for (int i = 1; i < argc; i++) {
    int rc = gql_cli_server_flag(cmd, st, argc, argv, &i);
    if (rc == 0)
      rc = serve_flag(st, argc, argv, &i);
    if (rc < 0) {
      gql_settings_free(st);
      return 2;
    }
    if (rc == 0) {
      gql_settings_free(st);
      return gql_cli_unknown_option(cmd, argv[i]);
    }
  }
  int status = serve(st);
  gql_settings_free(st);
  return status;
}

/* Serves what the settings say. */
static int serve(gql_settings *st) {
  gql_http_options o = {0};
  const char *schema_path = st->serve.schema, *data_path = st->serve.data;
  bool subgraph = st->serve.subgraph == GQL_CFG_TRUE;
  bool trace_source = st->trace.source == GQL_CFG_TRUE;
  const char *trace_otlp = st->trace.otlp, *trace_path = st->trace.file;
  const char *trace_collapse = st->trace.collapse == GQL_CFG_UNSET  ? NULL
                               : st->trace.collapse == GQL_CFG_TRUE ? "on"
                                                                    : "off";
  char depth_text[16];
  snprintf(depth_text, sizeof depth_text, "%d", (int)st->trace.depth);
  const char *trace_depth = st->trace.depth_set ? depth_text : NULL;
  const char *trace_vars = trace_vars_text(st);
  const char *trace_service = st->trace.service_name;
  unsigned long long trace_timeout = st->trace.timeout_ms;
  const char *trace_protocol = st->trace.protocol;
  if (!gql_cli_http_options("gql serve", st, &o))
    return 1;
  gql_cli_warn_unapplied("gql serve", st);
  if (subgraph && !schema_path) {
    fprintf(stderr, "gql serve: --subgraph needs --schema\n");
    return 2;
  }
  if (data_path && !schema_path) {
    fprintf(stderr, "gql serve: --data needs --schema\n");
    return 2;
  }
  if (schema_path && !data_path && !subgraph)
    fprintf(stderr,
            "gql serve: warning: no --data, so every field of %s resolves to "
            "null (--data DATA.json gives the fields the properties named "
            "after them)\n",
            schema_path);
  bool tracing = trace_otlp || trace_path;
  if (!tracing && (trace_collapse || trace_depth || trace_source ||
                   trace_vars || trace_service || trace_timeout)) {
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
  gql_cli_observer obs = {0};
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
    if (!(sdl = gql_cli_read_file_as("gql serve", schema_path, &sdl_len)))
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
  if (gql_cli_observer_init(&obs, st, "gql serve", false, tracer) < 0) {
    fprintf(stderr, "gql serve: cannot set up metrics\n");
    goto done;
  }
  o.observer = &obs.ob;
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
  gql_cli_observer_free(&obs);
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
