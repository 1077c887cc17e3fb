/* What gql serve and gql gateway share: --config FILE, the server flags
 * (filled into the same settings as the file, after it, so they override
 * it), and the settings turned into the HTTP server's options. */
#include "cli.h"
#include "gql_http.h"

#include <stdlib.h>

int gql_cli_unknown_option(const char *cmd, const char *arg) {
  fprintf(stderr, "%s: unknown option '%s' (see '%s --help')\n", cmd, arg, cmd);
  return 2;
}

/* Prints the loader's error lines, each prefixed with the command. */
static void print_errors(const char *cmd, const char *errors) {
  while (errors && *errors) {
    const char *nl = strchr(errors, '\n');
    size_t len = nl ? (size_t)(nl - errors) : strlen(errors);
    fprintf(stderr, "%s: %.*s\n", cmd, (int)len, errors);
    errors += len + (nl != NULL);
  }
}

gql_settings *gql_cli_settings_load(const char *cmd, int argc, char **argv) {
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0)
      break;
    if (strcmp(argv[i], "--config") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s: --config needs a FILE\n", cmd);
        return NULL;
      }
      path = argv[++i];
    }
  }
  if (!path) {
    gql_settings *st = gql_settings_new();
    if (!st)
      fprintf(stderr, "%s: out of memory\n", cmd);
    return st;
  }
  gql_settings *st = NULL;
  char *errors = NULL;
  if (gql_settings_load_file(path, NULL, &st, &errors) < 0) {
    print_errors(cmd, errors ? errors : "out of memory");
    free(errors);
    return NULL;
  }
  return st;
}

bool gql_cli_log_level(const char *cmd, const char *v, gql_settings *st) {
  static const char *const levels[] = {"error", "warn", "info", "debug"};
  for (int l = 0; l < 4; l++)
    if (strcmp(v, levels[l]) == 0) {
      st->server.log_level = (uint8_t)(GQL_CFG_LOG_ERROR + l);
      return true;
    }
  fprintf(stderr,
          "%s: --log-level takes error, warn, info or debug, not '%s'\n", cmd,
          v);
  return false;
}

int gql_cli_server_flag(const char *cmd, gql_settings *st, int argc,
                        char **argv, int *i) {
  const char *a = argv[*i];
  int pq = gql_cli_persisted_flag(cmd, st, argc, argv, i);
  if (!pq)
    pq = gql_cli_demand_control_flag(cmd, st, argc, argv, i);
  if (!pq)
    pq = gql_cli_graphiql_flag(cmd, st, argc, argv, i);
  if (!pq)
    pq = gql_cli_subscription_flag(cmd, st, argc, argv, i);
  if (pq)
    return pq;
  static const char *const with_value[] = {
      "--config",           "--host",
      "--listen",           "--port",
      "--threads",          "--max-body",
      "--max-header-bytes", "--max-headers",
      "--max-depth",        "--max-tokens",
      "--max-fields",       "--max-connections",
      "--idle-timeout",     "--request-timeout",
      "--shutdown-timeout", "--cache-bytes",
      "--log-level",        "--log-format",
      "--metrics-path",     "--max-query-depth",
      "--max-height",       "--max-aliases",
      "--max-root-fields",  "--introspection"};
  if (strcmp(a, "--no-metrics") == 0) {
    st->server.metrics = GQL_CFG_FALSE;
    return 1;
  }
  const char *v;
  int taken = gql_cli_take_value(cmd, argc, argv, i, with_value,
                                 GQL_ARRAY_LEN(with_value), &v);
  if (taken <= 0)
    return taken;
  unsigned long long n = 0;
  gql_cfg_limits *l = &st->limits;
  gql_cfg_server *s = &st->server;
  bool ok = true;
  if (strcmp(a, "--config") == 0) {
    /* loaded before the flags */
  } else if (strcmp(a, "--listen") == 0) {
    const char *why = NULL;
    gql_cfg_listen l = {0};
    ok = gql_settings_parse_listen(st, v, &l, &why);
    if (ok)
      st->supergraph.listen = l;
    else
      fprintf(stderr, "%s: --listen '%s': %s\n", cmd, v, why ? why : "bad");
  } else if (strcmp(a, "--host") == 0) {
    st->supergraph.listen.host = v;
    st->supergraph.listen.unix_path = NULL;
    if (!st->supergraph.listen.set)
      st->supergraph.listen.port = 4000;
    st->supergraph.listen.set = true;
  } else if (strcmp(a, "--port") == 0) {
    if ((ok = gql_cli_parse_range(cmd, a, v, 0, 65535, &n))) {
      if (!st->supergraph.listen.set || st->supergraph.listen.unix_path)
        st->supergraph.listen.host = "127.0.0.1";
      st->supergraph.listen.unix_path = NULL;
      st->supergraph.listen.port = (int)n;
      st->supergraph.listen.set = true;
    }
  } else if (strcmp(a, "--threads") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 256, &n);
    s->threads = (uint32_t)n;
  } else if (strcmp(a, "--max-body") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, (size_t)1 << 32, &n);
    l->http_max_request_bytes = n;
  } else if (strcmp(a, "--max-header-bytes") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 1 << 24, &n);
    l->http1_max_request_buf_size = n;
  } else if (strcmp(a, "--max-headers") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 100000, &n);
    l->http1_max_request_headers = (uint32_t)n;
  } else if (strcmp(a, "--max-depth") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 100000, &n);
    l->parser_max_recursion = (uint32_t)n;
  } else if (strcmp(a, "--max-tokens") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, UINT32_MAX, &n);
    l->parser_max_tokens = (uint32_t)n;
  } else if (strcmp(a, "--max-fields") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, UINT32_MAX, &n);
    l->max_fields = (uint32_t)n;
  } else if (strcmp(a, "--max-connections") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 1000000, &n);
    s->max_connections = (uint32_t)n;
  } else if (strcmp(a, "--idle-timeout") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 86400000, &n);
    s->idle_timeout_ms = n;
  } else if (strcmp(a, "--request-timeout") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 86400000, &n);
    s->request_timeout_ms = n;
  } else if (strcmp(a, "--shutdown-timeout") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, 3600000, &n);
    s->shutdown_timeout_ms = n;
  } else if (strcmp(a, "--cache-bytes") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, (size_t)1 << 40, &n);
    s->document_cache_bytes = n;
  } else if (strcmp(a, "--log-format") == 0) {
    if (!(ok = !strcmp(v, "text") || !strcmp(v, "json")))
      fprintf(stderr, "%s: --log-format takes text or json, not '%s'\n", cmd,
              v);
    s->log_format = v[0] == 't' ? 1 : 2;
  } else if (strcmp(a, "--metrics-path") == 0) {
    if (!(ok = v[0] == '/' && !strpbrk(v, " ?#\t")))
      fprintf(stderr, "%s: --metrics-path takes a path such as /metrics\n",
              cmd);
    s->metrics_path = v;
  } else if (strcmp(a, "--max-query-depth") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, UINT32_MAX, &n);
    l->max_depth = (uint32_t)n;
  } else if (strcmp(a, "--max-height") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, UINT32_MAX, &n);
    l->max_height = (uint32_t)n;
  } else if (strcmp(a, "--max-aliases") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, UINT32_MAX, &n);
    l->max_aliases = (uint32_t)n;
  } else if (strcmp(a, "--max-root-fields") == 0) {
    ok = gql_cli_parse_range(cmd, a, v, 1, UINT32_MAX, &n);
    l->max_root_fields = (uint32_t)n;
  } else if (strcmp(a, "--introspection") == 0) {
    ok = strcmp(v, "on") == 0 || strcmp(v, "off") == 0;
    if (!ok)
      fprintf(stderr, "%s: --introspection takes on or off, not '%s'\n", cmd,
              v);
    st->supergraph.introspection =
        strcmp(v, "on") == 0 ? GQL_CFG_TRUE : GQL_CFG_FALSE;
  } else {
    ok = gql_cli_log_level(cmd, v, st);
  }
  return ok ? 1 : -1;
}

bool gql_cli_http_options(const char *cmd, const gql_settings *st,
                          gql_http_options *o) {
  const gql_cfg_listen *ls = &st->supergraph.listen;
  if (ls->unix_path) {
    o->unix_path = ls->unix_path;
  } else if (ls->set) {
    o->host = ls->host;
    o->port = ls->port == 0 ? -1 : ls->port;
  }
  o->path = st->supergraph.path;
  o->threads = st->server.threads;
  o->max_connections = st->server.max_connections;
  o->idle_timeout_ms = (unsigned)st->server.idle_timeout_ms;
  o->request_timeout_ms = (unsigned)st->server.request_timeout_ms;
  o->shutdown_timeout_ms = (unsigned)st->server.shutdown_timeout_ms;
  o->cache_bytes = st->server.document_cache_bytes;
  o->max_body = st->limits.http_max_request_bytes;
  o->max_header_bytes = st->limits.http1_max_request_buf_size;
  o->max_headers = st->limits.http1_max_request_headers;
  o->parse.max_depth = st->limits.parser_max_recursion;
  o->parse.max_tokens = st->limits.parser_max_tokens;
  o->max_plan_size = st->limits.max_fields;
  o->max_depth = st->limits.max_depth;
  o->max_height = st->limits.max_height;
  o->max_aliases = st->limits.max_aliases;
  o->max_root_fields = st->limits.max_root_fields;
  o->no_introspection = st->supergraph.introspection == GQL_CFG_FALSE;
  const gql_cfg_subscription *sb = &st->subscription;
  o->subscription = (gql_http_subscription_limits){
      .disabled = sb->enabled == GQL_CFG_FALSE,
      .max_opened = sb->max_opened_subscriptions,
      .max_per_connection = sb->max_subscriptions_per_connection,
      .queue_capacity = sb->queue_capacity,
      .ping_interval_ms = (uint32_t)sb->ping_interval_ms,
      .init_timeout_ms = (uint32_t)sb->init_timeout_ms,
      .max_message = (uint32_t)sb->max_message_bytes,
      .sse_reservation_ttl_ms = (uint32_t)sb->sse_reservation_ttl_ms};
  /* always set (warn by default, as the server's): a reload changes it
   * in place (reload.c), and gql_cli_log reads it */
  o->log_level = st->server.log_level
                     ? (gql_http_log_level)(st->server.log_level - 1)
                     : GQL_HTTP_LOG_WARN;
  o->log_level_set = true;
  return true;
}

void gql_cli_warn_unapplied(const char *cmd, const gql_settings *st,
                            bool gateway) {
  const char *f = st->file;
  if (!f)
    return;
  struct {
    bool set;
    const char *what;
  } parts[] = {{!gateway && (st->headers.all.count || st->headers.nsubgraphs),
                "headers (propagation to subgraphs: gql gateway only)"},
               {!gateway && (st->subscription.mode.all.protocol ||
                             st->subscription.mode.all.path ||
                             st->subscription.mode.nsubgraphs),
                "subscription.mode (subscriptions to subgraphs: gql gateway "
                "only)"}};
  for (size_t i = 0; i < GQL_ARRAY_LEN(parts); i++)
    if (parts[i].set)
      fprintf(stderr,
              "%s: warning: %s: %s is checked but not applied yet by this "
              "version\n",
              cmd, f, parts[i].what);
}
