/* The --trace-* options of gql serve and gql gateway, and the tracer they
 * make: spans to an OTLP/HTTP collector and/or a file. */
#include "cli.h"

#include <stdlib.h>

static int sinks_transport(void *ud, const char *json, size_t len) {
  gql_cli_tracing *k = ud;
  int rc = 0;
  if (k->file && gql_trace_file_transport(k->file, json, len) < 0)
    rc = GQL_EIO;
  if (k->has_http && gql_trace_http_transport(&k->http, json, len) < 0)
    rc = GQL_EIO;
  return rc;
}

int gql_cli_trace_flag(const char *cmd, gql_settings *st, int argc, char **argv,
                       int *i) {
  const char *a = argv[*i];
  gql_cfg_trace *t = &st->trace;
  if (strcmp(a, "--trace-source") == 0) {
    t->source = GQL_CFG_TRUE;
    return 1;
  }
  static const char *const with_value[] = {
      "--trace-otlp",    "--trace-file",         "--trace-collapse",
      "--trace-depth",   "--trace-variables",    "--trace-service",
      "--trace-timeout", "--trace-otlp-protocol"};
  const char *v;
  int taken = gql_cli_take_value(cmd, argc, argv, i, with_value,
                                 GQL_ARRAY_LEN(with_value), &v);
  if (taken <= 0)
    return taken;
  unsigned long long n = 0;
  if (strcmp(a, "--trace-otlp") == 0) {
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

int gql_cli_tracing_start(const char *cmd, gql_settings *st,
                          gql_cli_tracing *k) {
  memset(k, 0, sizeof *k);
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
  bool tracing = trace_otlp || trace_path;
  if (!tracing && (trace_collapse || trace_depth || trace_source ||
                   trace_vars || trace_service || trace_timeout)) {
    fprintf(stderr, "%s: trace options need --trace-otlp or --trace-file\n",
            cmd);
    return 2;
  }
  if (trace_protocol && !trace_otlp) {
    fprintf(stderr, "%s: --trace-otlp-protocol needs --trace-otlp\n", cmd);
    return 2;
  }
  if (trace_otlp) {
    if (gql_trace_http_init(&k->http, trace_otlp) < 0) {
      fprintf(stderr,
              "%s: --trace-otlp takes http://HOST[:PORT][/PATH], not '%s'\n",
              cmd, trace_otlp);
      return 2;
    }
    k->has_http = true;
    const char *env = getenv("OTEL_EXPORTER_OTLP_TIMEOUT");
    unsigned long long ms = 0;
    if (!trace_timeout && env && *env &&
        gql_cli_parse_num(cmd, "OTEL_EXPORTER_OTLP_TIMEOUT", env, 600000,
                          &ms) &&
        ms)
      trace_timeout = ms;
    k->http.timeout_ms = trace_timeout ? (uint32_t)trace_timeout : 10000;
    k->http.retries = 2;
    const char *penv = getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL");
    if (!penv || !*penv)
      penv = getenv("OTEL_EXPORTER_OTLP_PROTOCOL");
    const char *proto = trace_protocol ? trace_protocol : penv;
    if (proto && *proto && !gql_cli_otlp_protocol(proto, &k->http.protocol)) {
      fprintf(stderr,
              "%s: OTEL_EXPORTER_OTLP_PROTOCOL: '%s' is not http/json or "
              "http/protobuf\n",
              cmd, proto);
      return 2;
    }
  }
  if (k->http.protocol == GQL_OTLP_HTTP_PROTOBUF && trace_path) {
    fprintf(stderr,
            "%s: --trace-file writes JSON: it cannot go with the "
            "http/protobuf protocol\n",
            cmd);
    return 2;
  }
  if (gql_cli_trace_options(&k->options, trace_source, trace_collapse,
                            trace_depth, trace_vars, &k->vars_copy,
                            k->allow) < 0)
    return 1;
  if (!tracing)
    return 0;
  if (trace_path && !(k->file = fopen(trace_path, "a"))) {
    fprintf(stderr, "%s: cannot open %s\n", cmd, trace_path);
    return 1;
  }
  const char *svc = getenv("OTEL_SERVICE_NAME");
  uint32_t attempt_ms = k->has_http ? k->http.timeout_ms : 0;
  gql_tracer_config tc = {
      .service_name = trace_service ? trace_service
                      : svc && *svc ? svc
                                    : "gql",
      .transport = sinks_transport,
      .transport_ud = k,
      .protocol = k->http.protocol,
      /* three attempts of the batch being sent, one more for the rest */
      .flush_timeout_ms = attempt_ms ? 4 * attempt_ms : 0};
  if (gql_tracer_new(&tc, &k->tracer) < 0) {
    fprintf(stderr, "%s: cannot start tracing\n", cmd);
    return 1;
  }
  return 0;
}

void gql_cli_tracing_stop(const char *cmd, gql_cli_tracing *k) {
  if (k->tracer) {
    gql_tracer_stats st;
    gql_tracer_stats_get(k->tracer, &st);
    fprintf(stderr,
            "%s: trace: %llu spans queued, %llu exported, %llu dropped, %llu "
            "export errors, %llu unsent\n",
            cmd, (unsigned long long)st.queued, (unsigned long long)st.exported,
            (unsigned long long)st.dropped, (unsigned long long)st.failed,
            (unsigned long long)st.pending);
    gql_tracer_free(k->tracer);
    k->tracer = NULL;
  }
  if (k->file)
    fclose(k->file);
  k->file = NULL;
  free(k->vars_copy);
  k->vars_copy = NULL;
}
