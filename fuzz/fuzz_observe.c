/* Log lines and metric label values from arbitrary bytes (a client's
 * path, operation name, a subgraph's error code): a JSON log line parses
 * back to one object whose fields are the inputs (cut, invalid UTF-8
 * replaced); a text line is one line; a label value registered in a
 * metrics registry is written as one sample line with its quotes closed. */
#include "observe/log.h"
#include "observe/metrics.h"
#include "json/json.h"

#include <stdint.h>
#include <string.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

/* The input split at the first two 0xfe bytes: path, operation, label. */
static gql_str field(const uint8_t **p, const uint8_t *end) {
  const uint8_t *q = memchr(*p, 0xfe, (size_t)(end - *p));
  gql_str s = {(const char *)*p, (size_t)((q ? q : end) - *p)};
  *p = q ? q + 1 : end;
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *p = data, *end = data + size;
  gql_str path = field(&p, end), op = field(&p, end), label = field(&p, end);
  gql_log_access a = {.client = GQL_STR("127.0.0.1:1"),
                      .method = GQL_STR("POST"),
                      .path = path,
                      .status = 200,
                      .operation = op};
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_log_line(&b, GQL_LOG_JSON, 1796119713123456789u, GQL_LOG_INFO, "fuzz", op,
               &a);
  CHECK(b.len && b.data[b.len - 1] == '\n');
  CHECK(!memchr(b.data, '\n', b.len - 1));
  gql_arena *ar = gql_arena_new(NULL);
  gql_json_value *v = NULL;
  gql_json_error e;
  CHECK(gql_json_parse(ar, b.data, b.len - 1, NULL, &v, &e) == 0);
  const gql_json_value *jp = gql_json_get(v, GQL_STR("path"));
  CHECK(jp && jp->kind == GQL_JSON_STRING);
  /* a valid UTF-8 path under the cut comes back as it was */
  if (path.len < 1024) {
    gql_buf q;
    gql_buf_init(&q, NULL);
    gql_json_write_string(&q, path);
    gql_buf r;
    gql_buf_init(&r, NULL);
    gql_json_write_string(&r, jp->string);
    CHECK(q.len == r.len && memcmp(q.data, r.data, q.len) == 0);
    gql_buf_free(&q);
    gql_buf_free(&r);
  }
  b.len = 0;
  gql_log_line(&b, GQL_LOG_TEXT, 0, GQL_LOG_INFO, "fuzz", op, &a);
  CHECK(b.len && !memchr(b.data, '\n', b.len - 1));
  b.len = 0;
  gql_log_line(&b, GQL_LOG_TEXT, 0, GQL_LOG_WARN, "fuzz", op, NULL);
  CHECK(b.len && !memchr(b.data, '\n', b.len - 1));
  /* a label value */
  gql_metrics *m = gql_metrics_new();
  static const char *const l[] = {"code"};
  gql_metric_def d = {.name = "fuzz_total",
                      .help = "h\\\n",
                      .kind = GQL_METRIC_COUNTER,
                      .labels = l,
                      .nlabels = 1};
  int f = gql_metrics_family(m, &d);
  CHECK(f >= 0);
  gql_metric_series s;
  CHECK(gql_metrics_series(m, f, &label, &s));
  gql_metrics_shard *sh = gql_metrics_shard_new(m);
  CHECK(sh);
  gql_metrics_add(sh, &s, 7);
  b.len = 0;
  gql_metrics_write(m, &b);
  /* three lines: HELP, TYPE, the sample; the sample's value after the
   * closing quote and brace */
  int lines = 0;
  for (size_t i = 0; i < b.len; i++)
    lines += b.data[i] == '\n';
  CHECK(lines == 3);
  CHECK(b.len > 4 && memcmp(b.data + b.len - 5, "\"} 7\n", 5) == 0);
  gql_metrics_free(m);
  gql_arena_free(ar);
  gql_buf_free(&b);
  return 0;
}
