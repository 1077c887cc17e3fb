/* What gql serve and gql gateway tell the http part's observer
 * (gql_http_observer): the Prometheus families of src/observe counted per
 * worker thread, log lines as text or JSON, and readiness. */
#include "cli.h"
#include "gql_http.h"

#include <stdlib.h>
#include <time.h>

/* The error codes a worker has seen: their series, found once (a handful
 * of codes in practice; beyond, each new code is looked up anew). */
enum { CODES_KEPT = 16, CODE_MAX = 64 };

typedef struct obs_worker {
  gql_cli_observer *o;
  gql_metrics_shard *sh;
  gql_arena *scratch; /* a response's errors read back (reset each time) */
  uint32_t ncodes;
  struct {
    char code[CODE_MAX];
    uint8_t len;
    gql_metric_series s;
  } codes[CODES_KEPT];
} obs_worker;

static void *worker_start(void *ud) {
  gql_cli_observer *o = ud;
  obs_worker *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->o = o;
  if (o->metrics && (!(w->sh = gql_metrics_shard_new(o->metrics)) ||
                     !(w->scratch = gql_arena_new(NULL)))) {
    gql_arena_free(w->scratch);
    free(w);
    return NULL;
  }
  return w;
}

static void worker_free(void *worker) {
  obs_worker *w = worker;
  gql_arena_free(w->scratch);
  free(w); /* the shard is the registry's */
}

gql_metrics_shard *gql_cli_observer_shard(void *worker,
                                          gql_server_metrics **sm) {
  obs_worker *w = worker;
  if (!w || !w->sh)
    return NULL;
  *sm = &w->o->sm;
  return w->sh;
}

static void count_code(obs_worker *w, gql_str code) {
  if (code.len > CODE_MAX)
    code.len = CODE_MAX;
  for (uint32_t i = 0; i < w->ncodes; i++)
    if (w->codes[i].len == code.len &&
        memcmp(w->codes[i].code, code.ptr, code.len) == 0) {
      gql_metrics_add(w->sh, &w->codes[i].s, 1);
      return;
    }
  gql_metric_series s;
  if (!gql_metrics_series(w->o->metrics, w->o->sm.graphql_errors, &code, &s))
    return;
  gql_metrics_add(w->sh, &s, 1);
  if (w->ncodes < CODES_KEPT) {
    memcpy(w->codes[w->ncodes].code, code.ptr, code.len);
    w->codes[w->ncodes].len = (uint8_t)code.len;
    w->codes[w->ncodes++].s = s;
  }
}

/* gql_graphql_errors_total: each error of the response by its
 * extensions.code ("none" without one). Only for responses that may hold
 * errors: the response read back is off the common path. */
static void count_errors(obs_worker *w, const char *body, size_t len) {
  if (!body || !len || !memmem(body, len, "\"errors\"", 8))
    return;
  const gql_value *v, *list;
  gql_arena_reset(w->scratch);
  if (gql_value_parse(w->scratch, body, len, &v) < 0 ||
      gql_value_kind_of(list = gql_value_get(v, "errors", 6)) != GQL_VALUE_LIST)
    return;
  for (size_t i = 0; i < gql_value_count(list); i++) {
    const gql_value *ext = gql_value_get(gql_value_item(list, i), "extensions",
                                         10),
                    *code = gql_value_get(ext, "code", 4);
    count_code(w, gql_value_kind_of(code) == GQL_VALUE_STRING
                      ? gql_value_string(code)
                      : GQL_STR("none"));
  }
}

static void on_request(void *worker, const gql_http_request_info *info) {
  obs_worker *w = worker;
  gql_cli_observer *o = w->o;
  if (!o->metrics)
    return;
  gql_server_metrics_request(&o->sm, w->sh, info->status,
                             (gql_metric_op)(info->operation_type + 1),
                             info->duration_ns, info->document_cache);
  if (GQL_UNLIKELY(info->errors))
    count_errors(w, info->body, info->bytes);
}

static void on_connection(void *worker, int delta) {
  obs_worker *w = worker;
  if (w->o->metrics)
    gql_metrics_add(w->sh, &w->o->sm.connections, (uint64_t)(int64_t)delta);
}

static void on_websocket(void *worker, gql_http_ws_count what, int64_t n) {
  obs_worker *w = worker;
  if (w->o->metrics && (unsigned)what < 5)
    gql_metrics_add(w->sh, &w->o->sm.ws[what], (uint64_t)n);
}

static const char *metrics_page(void *ud, gql_output *out) {
  gql_cli_observer *o = ud;
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_metrics_write(o->metrics, &b);
  int rc = b.failed ? GQL_ENOMEM : gql_output_append(out, b.data, b.len);
  gql_buf_free(&b);
  return rc < 0 ? NULL : "text/plain; version=0.0.4; charset=utf-8";
}

static bool is_ready(void *ud) {
  gql_cli_observer *o = ud;
  return !o->ready || o->ready(o->ready_ud);
}

static uint64_t unix_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_log(void *ud, gql_http_log_level level, const char *message,
                   const gql_http_request_info *info) {
  gql_cli_observer *o = ud;
  gql_log_access acc, *ap = NULL;
  char trace_id[33] = "";
  if (info) {
    if (info->trace)
      gql_trace_id(info->trace, trace_id);
    acc = (gql_log_access){.client = info->client,
                           .method = gql_cstr(info->method),
                           .path = info->path,
                           .status = info->status,
                           .bytes = info->bytes,
                           .duration_ns = info->duration_ns,
                           .operation = info->operation_name,
                           .trace_id = gql_cstr(trace_id)};
    ap = &acc;
  }
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_log_line(&b, o->log_format, unix_ns(), (gql_log_level)level, o->name,
               gql_cstr(message), ap);
  if (!b.failed && b.len)
    fwrite(b.data, 1, b.len, o->log); /* one call: lines do not interleave */
  gql_buf_free(&b);
}

int gql_cli_observer_init(gql_cli_observer *o, const gql_settings *st,
                          const char *name, bool gateway, gql_tracer *tracer) {
  memset(o, 0, sizeof *o);
  o->name = name;
  o->log = stderr;
  o->log_format = st->server.log_format == 2 ? GQL_LOG_JSON : GQL_LOG_TEXT;
  bool metrics = st->server.metrics != GQL_CFG_FALSE;
  if (metrics) {
    if (!(o->metrics = gql_metrics_new()))
      return GQL_ENOMEM;
    int rc = gql_server_metrics_init(&o->sm, o->metrics, gateway, tracer);
    /* demand control's families at 0 from the start (a reload that turns
     * it on defines them at its first estimate: gql_cli_cost_report_estimate)
     */
    if (rc == 0 && st->demand_control.enabled)
      rc = gql_server_metrics_cost(&o->sm);
    if (rc < 0) {
      gql_metrics_free(o->metrics);
      o->metrics = NULL;
      return rc;
    }
  }
  o->ob = (gql_http_observer){
      .ud = o,
      .worker_start = worker_start,
      .worker_free = worker_free,
      .request = on_request,
      .connection = on_connection,
      .websocket = on_websocket,
      .metrics_path = !metrics                  ? NULL
                      : st->server.metrics_path ? st->server.metrics_path
                                                : "/metrics",
      .metrics = metrics_page,
      .ready = is_ready,
      .log = o->log_format == GQL_LOG_JSON ? on_log : NULL};
  return 0;
}

void gql_cli_observer_free(gql_cli_observer *o) {
  gql_metrics_free(o->metrics);
  o->metrics = NULL;
}
