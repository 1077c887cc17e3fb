/* libFuzzer target: graphql-transport-ws messages from a client. The input
 * is a sequence of messages separated by NUL bytes; a message starting
 * with 0x01 is a clock tick instead (its second byte: how far). The fake
 * server accepts, refuses or defers connections by the first byte of the
 * connection_init payload's text, answers a query at once (next, then
 * complete) and keeps a subscription open, sending an event to every open
 * one after each message. Whatever the input: every message sent is a
 * JSON object with a known type, nothing is sent after the close, one
 * close at most, and operations stay within the limit. */
#include "http/graphql_ws.h"
#include "json/json.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

#define MAX_OPS 8

typedef struct fake {
  gql_gws g;
  gql_gws_op *open[MAX_OPS + 1];
  int nopen;
  int closes;
  gql_arena *check;
  uint8_t verdict;
} fake;

static void f_send(void *ud, const char *text, size_t len) {
  fake *f = ud;
  CHECK(f->closes == 0);
  gql_arena_reset(f->check);
  gql_json_value *v;
  CHECK(gql_json_parse(f->check, text, len, NULL, &v, NULL) == 0);
  CHECK(v->kind == GQL_JSON_OBJECT);
  const gql_json_value *t = gql_json_get(v, GQL_STR("type"));
  CHECK(t && t->kind == GQL_JSON_STRING);
  static const char *types[] = {"connection_ack", "pong", "next", "error",
                                "complete"};
  bool known = false;
  for (size_t i = 0; i < 5; i++)
    known |= gql_str_eq_cstr(t->string, types[i]);
  CHECK(known);
}

static void f_close(void *ud, uint16_t code, const char *reason) {
  fake *f = ud;
  CHECK(f->closes++ == 0);
  CHECK(code >= 4400 && code <= 4500);
  CHECK(strlen(reason) < 124);
  CHECK(f->g.nops == 0);
}

static gql_gws_verdict f_connect(void *ud, const gql_json_value *payload) {
  fake *f = ud;
  (void)payload;
  return (gql_gws_verdict)(f->verdict % 3);
}

static void f_subscribe(void *ud, gql_gws_op *op, const gql_gws_request *rq) {
  fake *f = ud;
  CHECK(f->g.nops <= MAX_OPS);
  if (rq->query.len && rq->query.ptr[0] == 's' && f->nopen < MAX_OPS) {
    f->open[f->nopen++] = op;
    op->user = f;
    return;
  }
  if (rq->query.len && rq->query.ptr[0] == 'e') {
    gql_gws_error(op, "[{\"message\":\"bad\"}]", 19);
    return;
  }
  gql_gws_next(op, "{\"data\":{}}", 11);
  gql_gws_complete(op);
}

static void f_cancel(void *ud, gql_gws_op *op) {
  fake *f = ud;
  for (int i = 0; i < f->nopen; i++)
    if (f->open[i] == op) {
      f->open[i] = f->open[--f->nopen];
      return;
    }
}

static const gql_gws_handler handler = {f_send, f_close, f_connect, f_subscribe,
                                        f_cancel};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gql_gws_env *env;
  if (!env) {
    gql_gws_limits lim = {
        .max_operations = MAX_OPS, .max_id = 32, .init_timeout_ms = 100};
    env = gql_gws_env_new(&lim);
    CHECK(env);
  }
  fake f = {.check = gql_arena_new(NULL), .verdict = size ? data[0] : 0};
  uint64_t now = 1000;
  gql_gws_init(&f.g, env, &handler, &f, now);
  size_t start = 0;
  for (size_t i = 0; i <= size; i++) {
    if (i < size && data[i] != 0)
      continue;
    const char *m = (const char *)data + start;
    size_t n = i - start;
    start = i + 1;
    if (n >= 1 && m[0] == 1) {
      now += n >= 2 ? (uint8_t)m[1] : 1;
      gql_gws_tick(&f.g, now);
    } else {
      gql_gws_on_message(&f.g, m, n);
    }
    if (f.g.closed)
      CHECK(f.nopen == 0);
    for (int k = 0; k < f.nopen; k++)
      CHECK(gql_gws_next(f.open[k], "{\"data\":{\"tick\":1}}", 19) == 0);
    if (f.nopen && n && m[0] == 'X') /* the server ends one */
      gql_gws_complete(f.open[--f.nopen]);
    if (f.g.closed && !f.g.acknowledged && f.verdict % 3 == 2)
      gql_gws_accept(&f.g, NULL, 0); /* late: ignored */
  }
  gql_gws_free(&f.g);
  CHECK(f.nopen == 0);
  gql_arena_free(f.check);
  return 0;
}
