/* gql serve: GraphQL over HTTP for the built-in Star Wars demo or for a
 * schema over a JSON document (default resolvers). */
#include "cli.h"
#include "gql_http.h"
#include "schema/schema.h"

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
    "the requests in flight. SIGHUP, or a change to the schema, data or\n"
    "--config file, reloads them without dropping a request (a file that\n"
    "does not load is reported and the old ones keep serving).\n\n"
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
    "  --defer-stream         add graphql-js 17's @defer and @stream to the\n"
    "                         schema: their operations answer incrementally\n"
    "                         (multipart/mixed or text/event-stream, per\n"
    "                         the client's Accept)\n"
    "  --listen ADDR          HOST:PORT, [V6]:PORT, :PORT or unix:PATH (a "
    "Unix\n"
    "                         socket, e.g. behind a proxy; docs/deploy.md)\n"
    "  --host HOST            address to listen on (default 127.0.0.1)\n"
    "  --port PORT            port (default 4000; 0: any free port)\n"
    "  --threads N            worker threads (default: one per core)\n"
    "  --max-body BYTES       request body limit (default 1048576) -> 413\n"
    "  --max-header-bytes N   request line + headers limit (default 16384)\n"
    "  --max-headers N        header count limit (default 100) -> 431\n"
    "  --max-depth N          query nesting limit (default 256)\n"
    "  --max-tokens N         query token limit (default 100000)\n"
    "  --max-fields N         planned fields limit (default 100000)\n"
    "  --max-query-depth N, --max-height N, --max-aliases N,\n"
    "  --max-root-fields N    Apollo Router's operation limits (default: "
    "none;\n"
    "                         config limits.max_depth, ...): an operation "
    "over\n"
    "                         one is refused with MAX_..._LIMIT\n"
    "  --introspection on|off off: __schema and __type refused (default on)\n"
    "  --max-connections N    open connections limit (default 10000)\n"
    "  --idle-timeout MS      keep-alive idle timeout (default 30000)\n"
    "  --request-timeout MS   time for a request's bytes to arrive (default "
    "10000)\n"
    "  --shutdown-timeout MS  a stop's wait for the requests and streams in\n"
    "                         flight before it closes every connection\n"
    "                         (default 10000)\n"
    "  --cache-bytes BYTES    document cache per thread (default 16777216)\n"
    "  --log-level LEVEL      error|warn|info|debug (default warn; info adds\n"
    "                         an access-log line per request)\n"
    "  --log-format text|json log lines as text or one JSON object a line\n"
    "  --metrics-path PATH    Prometheus metrics there (default /metrics)\n"
    "  --no-metrics           no metrics page\n"
    "GET /ready answers 200 once serving, GET /health always.\n\n"
    "Persisted operations, demand control, GraphiQL (docs/config.md):\n"
    "  --apq                  Automatic Persisted Queries (default off)\n"
    "  --persisted-queries FILE  a manifest (Apollo's or {id: document});\n"
    "                         repeatable\n"
    "  --safelist             only operations of the manifests run\n"
    "  --safelist-require-id  only operations sent by id run\n"
    "  --redis URL            APQ shared with other replicas through Redis,\n"
    "                         and subscription events: a Subscription field\n"
    "                         f streams the Redis channel gql:f\n"
    "  --redis-timeout MS     a Redis lookup's deadline (default 100)\n"
    "  --demand-control-max N refuse operations estimated over N (@cost,\n"
    "                         @listSize): COST_ESTIMATED_TOO_EXPENSIVE\n"
    "  --demand-control-mode measure|enforce, --demand-control-list-size N\n"
    "  --graphiql-assets DIR|URL  GraphiQL's files from a folder or a base\n"
    "                         URL (default: the CDN)\n"
    "  --no-graphiql          no GraphiQL page for browsers\n\n"
    "Subscriptions over WebSocket (config subscription.*):\n"
    "  --subscriptions on|off the upgrade on the GraphQL path (default on)\n"
    "  --max-opened-subscriptions N  in the whole server (default: no "
    "limit)\n"
    "  --max-subscriptions-per-connection N  operations per socket (100)\n"
    "  --subscription-queue-capacity N  events waiting per subscriber (64)\n"
    "  --subscription-ping-interval MS  keep-alive ping (12000)\n"
    "  --subscription-init-timeout MS  connection_init wait (3000): 4408\n"
    "  --subscription-max-message BYTES  a client message (1048576): 1009\n"
    "  --subscription-sse-reservation-ttl MS  a graphql-sse reservation\n"
    "                         no stream opened is dropped (30000)\n"
    "  --subscription-channel-prefix P  Redis channels P + field (gql:)\n"
    "  --subscription-max-event BYTES  a Redis message (1048576); larger\n"
    "                         ones are dropped\n\n"
    "Tracing (a trace per GraphQL request, continuing a client's W3C\n"
    "traceparent; /metrics adds the tracer's counters; at exit a line on\n"
    "stderr: 'trace: N spans queued, N exported, N dropped, N export errors,\n"
    "N unsent'):\n"
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

static int serve(gql_settings *st, int argc, char **argv);

/* The flags of gql serve alone (the shared ones are in settings.c). */
static int serve_flag(gql_settings *st, int argc, char **argv, int *i) {
  static const char cmd[] = "gql serve";
  const char *a = argv[*i];
  if (strcmp(a, "--subgraph") == 0) { /* the flags without a value */
    st->serve.subgraph = GQL_CFG_TRUE;
    return 1;
  }
  if (strcmp(a, "--defer-stream") == 0) {
    st->serve.defer_stream = GQL_CFG_TRUE;
    return 1;
  }
  static const char *const with_value[] = {"--schema", "--data"};
  const char *v;
  int taken = gql_cli_take_value(cmd, argc, argv, i, with_value,
                                 GQL_ARRAY_LEN(with_value), &v);
  if (taken <= 0)
    return taken ? taken : gql_cli_trace_flag(cmd, st, argc, argv, i);
  if (strcmp(a, "--schema") == 0)
    st->serve.schema = v;
  else
    st->serve.data = v;
  return 1;
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
  int status = serve(st, argc, argv);
  gql_settings_free(st);
  return status;
}

/* Serves what the settings say. */
static int serve(gql_settings *st, int argc, char **argv) {
  gql_http_options o = {0};
  const char *schema_path = st->serve.schema, *data_path = st->serve.data;
  bool subgraph = st->serve.subgraph == GQL_CFG_TRUE;
  if (!gql_cli_http_options("gql serve", st, &o))
    return 1;
  gql_cli_warn_unapplied("gql serve", st, false);
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
  gql_cli_tracing tracing;
  int trc = gql_cli_tracing_start("gql serve", st, &tracing);
  if (trc) {
    gql_cli_tracing_stop("gql serve", &tracing);
    return trc;
  }
  gql_cli_hooks hooks;
  if (!gql_cli_hooks_init("gql serve", st, &hooks, &o)) {
    gql_cli_tracing_stop("gql serve", &tracing);
    return 1;
  }
  gql_tracer *tracer = tracing.tracer;
  int status = 1;
  gql_http_server *srv = NULL;
  gql_cli_observer obs = {0};
  /* the files, loaded again on SIGHUP or when they change (reload.c) */
  gql_cli_reload rl = {.cmd = "gql serve",
                       .argc = argc,
                       .argv = argv,
                       .flag = serve_flag,
                       .schema = schema_path,
                       .data = data_path,
                       .subgraph = subgraph,
                       .defer_stream = st->serve.defer_stream == GQL_CFG_TRUE,
                       .schema_ready = gql_cli_serve_events_schema};
  gql_cli_reload_init(&rl, st, &o);
  gql_http_generation first = {0};
  gql_cli_serve_events events = {0};
  if (gql_cli_reload_first(&rl, &first) < 0)
    goto done;
  gql_schema *schema = first.schema;
  o.root_value = first.root_value;
  if (gql_cli_serve_events_init(&events, st, hooks.redis, &o) < 0) {
    fprintf(stderr, "gql serve: cannot set up subscriptions\n");
    goto done;
  }
  if (schema_path || st->file)
    o.reload = &rl.rl;
  if (tracer) {
    o.tracer = tracer;
    o.trace_options = &tracing.options;
  }
  if (gql_cli_observer_init(&obs, st, "gql serve", false, tracer) < 0 ||
      gql_cli_serve_events_observe(&events, &obs) < 0) {
    fprintf(stderr, "gql serve: cannot set up metrics\n");
    goto done;
  }
  o.observer = &obs.ob;
  char banner[512];
  snprintf(banner, sizeof banner, "gql serve: serving %s%s",
           subgraph ? "the subgraph " : "",
           schema_path ? schema_path : "the Star Wars demo");
  o.banner = banner;
  if (!gql_cli_demand_control_init("gql serve", st, schema, NULL, 0,
                                   &hooks.first->dc))
    goto done;
  int rc = gql_http_server_new(schema, &o, &srv);
  if (rc < 0) {
    fprintf(stderr, "gql serve: %s\n", gql_strerror(rc));
    goto done;
  }
  rl.server = srv;
  rc = gql_http_server_run(srv); /* flushes the tracer */
  status = rc < 0 ? 1 : 0;
done:
  gql_http_server_free(srv);
  gql_cli_hooks_free(&hooks);
  gql_cli_observer_free(&obs);
  gql_cli_serve_events_free(&events);
  gql_cli_tracing_stop("gql serve", &tracing);
  if (first.release)
    first.release(first.ud);
  return status;
}

const gql_cli_command gql_cmd_serve = {
    .name = "serve",
    .summary = "serve GraphQL over HTTP (the Star Wars demo by default)",
    .usage = usage,
    .run = run,
};
