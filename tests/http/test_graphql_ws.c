/* The graphql-transport-ws machine: every message type and every error
 * case of graphql-ws 6's protocol, as actions recorded by a fake
 * transport and server. */
#include "http/graphql_ws.h"
#include "json/json.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct rec {
  gql_gws g;
  gql_gws_env *env;
  char sent[32][512];
  int nsent;
  uint16_t close_code;
  char close_reason[128];
  int closes;
  gql_gws_verdict verdict;
  const gql_json_value *init_payload_seen;
  bool init_payload_object;
  /* subscribe */
  gql_gws_op *ops[200];
  int nsubs;
  char query[256], opname[64], vars[256], ext[256];
  bool has_opname;
  enum { KEEP, ANSWER_ONCE, COMPLETE_IN_CANCEL } mode;
  int cancels;
  char cancelled[8][64];
} rec;

static void r_send(void *ud, const char *text, size_t len) {
  rec *r = ud;
  cr_assert_lt(r->nsent, 32);
  cr_assert_lt(len, 512);
  memcpy(r->sent[r->nsent], text, len);
  r->sent[r->nsent][len] = 0;
  r->nsent++;
  /* every message we send is a JSON object */
  gql_arena *a = gql_arena_new(NULL);
  gql_json_value *v;
  cr_assert_eq(gql_json_parse(a, text, len, NULL, &v, NULL), 0, "%.*s",
               (int)len, text);
  cr_assert_eq(v->kind, GQL_JSON_OBJECT);
  gql_arena_free(a);
}

static void r_close(void *ud, uint16_t code, const char *reason) {
  rec *r = ud;
  cr_assert_eq(r->closes, 0, "closed twice");
  r->closes++;
  r->close_code = code;
  snprintf(r->close_reason, sizeof r->close_reason, "%s", reason);
  cr_assert_eq(r->g.nops, 0, "operations are cancelled before the close");
}

static gql_gws_verdict r_connect(void *ud, const gql_json_value *payload) {
  rec *r = ud;
  r->init_payload_object = payload && payload->kind == GQL_JSON_OBJECT;
  return r->verdict;
}

static void write_json(char *dst, size_t cap, const gql_json_value *v) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  if (v)
    gql_json_write_value(&b, v);
  snprintf(dst, cap, "%s", v ? gql_buf_cstr(&b) : "(none)");
  gql_buf_free(&b);
}

static void r_subscribe(void *ud, gql_gws_op *op, const gql_gws_request *rq) {
  rec *r = ud;
  r->ops[r->nsubs++] = op;
  snprintf(r->query, sizeof r->query, "%.*s", (int)rq->query.len,
           rq->query.ptr);
  snprintf(r->opname, sizeof r->opname, "%.*s", (int)rq->operation_name.len,
           rq->operation_name.ptr);
  r->has_opname = rq->has_operation_name;
  write_json(r->vars, sizeof r->vars, rq->variables);
  write_json(r->ext, sizeof r->ext, rq->extensions);
  if (r->mode == ANSWER_ONCE) {
    static const char res[] = "{\"data\":{\"hello\":\"world\"}}";
    cr_assert_eq(gql_gws_next(op, res, sizeof res - 1), 0);
    cr_assert_eq(gql_gws_complete(op), 0);
  }
}

static void r_cancel(void *ud, gql_gws_op *op) {
  rec *r = ud;
  snprintf(r->cancelled[r->cancels % 8], 64, "%.*s", (int)op->id_len,
           op->bytes);
  r->cancels++;
  if (r->mode == COMPLETE_IN_CANCEL)
    cr_assert_eq(gql_gws_complete(op), GQL_EINVAL, "nothing goes out");
}

static const gql_gws_handler handler = {r_send, r_close, r_connect, r_subscribe,
                                        r_cancel};

static void setup(rec *r, const gql_gws_limits *lim) {
  memset(r, 0, sizeof *r);
  r->env = gql_gws_env_new(lim);
  cr_assert_not_null(r->env);
  gql_gws_init(&r->g, r->env, &handler, r, 1000);
}

static void teardown(rec *r) {
  gql_gws_free(&r->g);
  gql_gws_env_free(r->env);
}

static void msg(rec *r, const char *s) {
  gql_gws_on_message(&r->g, s, strlen(s));
}

static void acked(rec *r) {
  msg(r, "{\"type\":\"connection_init\"}");
  cr_assert_eq(r->nsent, 1);
  cr_assert_str_eq(r->sent[0], "{\"type\":\"connection_ack\"}");
  r->nsent = 0;
}

#define SUB(id, q)                                                             \
  "{\"id\":\"" id "\",\"type\":\"subscribe\",\"payload\":{\"query\":\"" q "\"" \
  "}}"

Test(graphql_ws, init_is_acknowledged_and_pings_are_answered) {
  rec r;
  setup(&r, NULL);
  msg(&r, "{\"type\":\"ping\"}"); /* allowed before init */
  msg(&r, "{\"type\":\"connection_init\",\"payload\":{\"token\":\"t\"}}");
  msg(&r, "{\"type\":\"ping\",\"payload\":{\"n\":[1,2]}}");
  msg(&r, "{\"type\":\"ping\",\"payload\":null}");
  msg(&r, "{\"type\":\"pong\",\"payload\":{\"x\":1}}");
  cr_assert_eq(r.closes, 0);
  cr_assert_eq(r.nsent, 4);
  cr_assert_str_eq(r.sent[0], "{\"type\":\"pong\"}");
  cr_assert_str_eq(r.sent[1], "{\"type\":\"connection_ack\"}");
  cr_assert_str_eq(r.sent[2], "{\"type\":\"pong\",\"payload\":{\"n\":[1,2]}}");
  cr_assert_str_eq(r.sent[3], "{\"type\":\"pong\"}");
  cr_assert(r.init_payload_object);
  teardown(&r);
}

Test(graphql_ws, no_init_in_time_closes_4408) {
  gql_gws_limits lim = {.init_timeout_ms = 500};
  rec r;
  setup(&r, &lim);
  cr_assert_eq(gql_gws_deadline(&r.g), 1500);
  gql_gws_tick(&r.g, 1499);
  cr_assert_eq(r.closes, 0);
  gql_gws_tick(&r.g, 1500);
  cr_assert_eq(r.close_code, 4408);
  cr_assert_str_eq(r.close_reason, "Connection initialisation timeout");
  cr_assert_eq(gql_gws_deadline(&r.g), 0);
  msg(&r, "{\"type\":\"connection_init\"}");
  cr_assert_eq(r.nsent, 0, "nothing after the close");
  teardown(&r);
}

Test(graphql_ws, init_in_time_disarms_the_timeout_and_a_second_is_4429) {
  rec r;
  setup(&r, NULL);
  cr_assert_eq(gql_gws_deadline(&r.g), 4000, "graphql-ws waits 3 s");
  acked(&r);
  cr_assert_eq(gql_gws_deadline(&r.g), 0);
  gql_gws_tick(&r.g, 1000000);
  cr_assert_eq(r.closes, 0);
  msg(&r, "{\"type\":\"connection_init\"}");
  cr_assert_eq(r.close_code, 4429);
  cr_assert_str_eq(r.close_reason, "Too many initialisation requests");
  teardown(&r);
}

Test(graphql_ws, a_refused_connection_closes_4403) {
  rec r;
  setup(&r, NULL);
  r.verdict = GQL_GWS_REJECT;
  msg(&r, "{\"type\":\"connection_init\"}");
  cr_assert_eq(r.close_code, 4403);
  cr_assert_str_eq(r.close_reason, "Forbidden");
  cr_assert_eq(r.nsent, 0);
  teardown(&r);
}

Test(graphql_ws,
     a_later_verdict_holds_the_ack_and_subscribe_meanwhile_is_4401) {
  rec r;
  setup(&r, NULL);
  r.verdict = GQL_GWS_LATER;
  msg(&r, "{\"type\":\"connection_init\"}");
  cr_assert_eq(r.nsent, 0);
  cr_assert_eq(gql_gws_deadline(&r.g), 0, "init came: no timeout");
  gql_gws_accept(&r.g, "{\"server\":\"gql\"}", 16);
  cr_assert_eq(r.nsent, 1);
  cr_assert_str_eq(
      r.sent[0],
      "{\"type\":\"connection_ack\",\"payload\":{\"server\":\"gql\"}}");
  gql_gws_accept(&r.g, NULL, 0);
  cr_assert_eq(r.nsent, 1, "one ack");
  teardown(&r);

  setup(&r, NULL);
  r.verdict = GQL_GWS_LATER;
  msg(&r, "{\"type\":\"connection_init\"}");
  msg(&r, SUB("1", "{ hello }"));
  cr_assert_eq(r.close_code, 4401);
  cr_assert_str_eq(r.close_reason, "Unauthorized");
  cr_assert_eq(r.nsubs, 0);
  teardown(&r);

  setup(&r, NULL);
  r.verdict = GQL_GWS_LATER;
  msg(&r, "{\"type\":\"connection_init\"}");
  gql_gws_reject(&r.g);
  cr_assert_eq(r.close_code, 4403);
  teardown(&r);
}

Test(graphql_ws, subscribe_before_init_is_4401) {
  rec r;
  setup(&r, NULL);
  msg(&r, SUB("1", "{ hello }"));
  cr_assert_eq(r.close_code, 4401);
  cr_assert_eq(r.nsubs, 0);
  teardown(&r);
}

Test(graphql_ws, a_query_gets_next_then_complete) {
  rec r;
  setup(&r, NULL);
  acked(&r);
  r.mode = ANSWER_ONCE;
  msg(&r, "{\"id\":\"q1\",\"type\":\"subscribe\",\"payload\":{\"query\":\"{ "
          "hello }\",\"operationName\":\"Q\",\"variables\":{\"a\":1},"
          "\"extensions\":{\"e\":true}}}");
  cr_assert_eq(r.nsubs, 1);
  cr_assert_str_eq(r.query, "{ hello }");
  cr_assert(r.has_opname);
  cr_assert_str_eq(r.opname, "Q");
  cr_assert_str_eq(r.vars, "{\"a\":1}");
  cr_assert_str_eq(r.ext, "{\"e\":true}");
  cr_assert_eq(r.nsent, 2);
  cr_assert_str_eq(
      r.sent[0],
      "{\"id\":\"q1\",\"type\":\"next\",\"payload\":{\"data\":{\"hello\":"
      "\"world\"}}}");
  cr_assert_str_eq(r.sent[1], "{\"id\":\"q1\",\"type\":\"complete\"}");
  cr_assert_eq(r.g.nops, 0);
  /* the id is free again */
  msg(&r, SUB("q1", "{ hello }"));
  cr_assert_eq(r.closes, 0);
  cr_assert_eq(r.nsubs, 2);
  /* null variables, operationName and extensions are as absent */
  msg(&r,
      "{\"id\":\"q2\",\"type\":\"subscribe\",\"payload\":{\"query\":\"{a}\","
      "\"variables\":null,\"operationName\":null,\"extensions\":null}}");
  cr_assert_eq(r.closes, 0);
  cr_assert(!r.has_opname);
  cr_assert_str_eq(r.vars, "(none)");
  teardown(&r);
}

Test(graphql_ws, a_subscription_streams_until_the_server_completes) {
  rec r;
  setup(&r, NULL);
  acked(&r);
  msg(&r, SUB("s", "subscription { tick }"));
  gql_gws_op *op = r.ops[0];
  cr_assert_str_eq(r.query, "subscription { tick }");
  for (int i = 0; i < 3; i++) {
    char ev[64];
    int n = snprintf(ev, sizeof ev, "{\"data\":{\"tick\":%d}}", i);
    cr_assert_eq(gql_gws_next(op, ev, (size_t)n), 0);
  }
  cr_assert_eq(r.nsent, 3);
  cr_assert_str_eq(r.sent[2],
                   "{\"id\":\"s\",\"type\":\"next\",\"payload\":{\"data\":{"
                   "\"tick\":2}}}");
  cr_assert_eq(gql_gws_complete(op), 0);
  cr_assert_str_eq(r.sent[3], "{\"id\":\"s\",\"type\":\"complete\"}");
  cr_assert_eq(r.cancels, 0, "a server-side end is no cancel");
  teardown(&r);
}

Test(graphql_ws, an_error_ends_the_operation) {
  rec r;
  setup(&r, NULL);
  acked(&r);
  msg(&r, SUB("e", "{ nope }"));
  static const char errs[] = "[{\"message\":\"Cannot query field \\\"nope\\\" "
                             "on type \\\"Query\\\".\","
                             "\"locations\":[{\"line\":1,\"column\":3}]}]";
  cr_assert_eq(gql_gws_error(r.ops[0], errs, sizeof errs - 1), 0);
  cr_assert_eq(r.nsent, 1);
  cr_assert(
      strstr(r.sent[0], "{\"id\":\"e\",\"type\":\"error\",\"payload\":[") ==
      r.sent[0]);
  cr_assert_eq(r.g.nops, 0);
  msg(&r, SUB("e", "{ hello }"));
  cr_assert_eq(r.closes, 0, "the id is free after an error");
  teardown(&r);
}

Test(graphql_ws, a_duplicate_id_in_progress_is_4409) {
  rec r;
  setup(&r, NULL);
  acked(&r);
  msg(&r, SUB("dup", "subscription { tick }"));
  msg(&r, SUB("other", "subscription { tick }"));
  msg(&r, SUB("dup", "subscription { tick }"));
  cr_assert_eq(r.close_code, 4409);
  cr_assert_str_eq(r.close_reason, "Subscriber for dup already exists");
  cr_assert_eq(r.nsubs, 2);
  cr_assert_eq(r.cancels, 2, "the close cancels what was in progress");
  teardown(&r);
}

Test(graphql_ws, complete_from_the_client_cancels_and_unknown_ids_are_ignored) {
  rec r;
  setup(&r, NULL);
  acked(&r);
  msg(&r, SUB("a", "subscription { tick }"));
  msg(&r, SUB("b", "subscription { tick }"));
  msg(&r, "{\"id\":\"a\",\"type\":\"complete\"}");
  cr_assert_eq(r.cancels, 1);
  cr_assert_str_eq(r.cancelled[0], "a");
  cr_assert_eq(r.g.nops, 1);
  msg(&r, "{\"id\":\"a\",\"type\":\"complete\"}");
  msg(&r, "{\"id\":\"zzz\",\"type\":\"complete\"}");
  cr_assert_eq(r.cancels, 1);
  cr_assert_eq(r.closes, 0);
  cr_assert_eq(r.nsent, 0, "nothing is sent for a client's complete");
  msg(&r, SUB("a", "subscription { tick }"));
  cr_assert_eq(r.closes, 0, "a completed id may be used again");
  teardown(&r);
}

Test(graphql_ws, invalid_messages_close_4400) {
  static const char *bad[] = {
      "not json",
      "[1,2]",
      "\"connection_init\"",
      "{}",
      "{\"type\":\"\"}",
      "{\"type\":1}",
      "{\"type\":null}",
      "{\"type\":\"foo\"}",
      "{\"type\":\"connection_ack\"}",
      "{\"id\":\"1\",\"type\":\"next\",\"payload\":{}}",
      "{\"id\":\"1\",\"type\":\"error\",\"payload\":[{\"message\":\"x\"}]}",
      "{\"type\":\"connection_init\",\"payload\":\"x\"}",
      "{\"type\":\"connection_init\",\"payload\":[]}",
      "{\"type\":\"ping\",\"payload\":5}",
      "{\"type\":\"pong\",\"payload\":true}",
      "{\"type\":\"subscribe\",\"payload\":{\"query\":\"{a}\"}}",
      "{\"id\":\"\",\"type\":\"subscribe\",\"payload\":{\"query\":\"{a}\"}}",
      "{\"id\":5,\"type\":\"subscribe\",\"payload\":{\"query\":\"{a}\"}}",
      "{\"id\":\"1\",\"type\":\"subscribe\"}",
      "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":null}",
      "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":{}}",
      "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":{\"query\":1}}",
      "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":{\"query\":\"{a}\","
      "\"variables\":[]}}",
      "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":{\"query\":\"{a}\","
      "\"operationName\":5}}",
      "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":{\"query\":\"{a}\","
      "\"extensions\":\"x\"}}",
      "{\"type\":\"complete\"}",
      "{\"id\":7,\"type\":\"complete\"}",
      "{\"type\":\"connection_init\"} trailing",
      NULL};
  for (int i = 0; bad[i]; i++) {
    rec r;
    setup(&r, NULL);
    acked(&r);
    msg(&r, SUB("live", "subscription { tick }"));
    msg(&r, bad[i]);
    cr_assert_eq(r.close_code, 4400, "%s: %u", bad[i], r.close_code);
    cr_assert_str_eq(r.close_reason, "Invalid message received");
    cr_assert_eq(r.nsubs, 1, "%s", bad[i]);
    cr_assert_eq(r.cancels, 1, "%s", bad[i]);
    cr_assert_not_null(r.g.why);
    teardown(&r);
  }
}

Test(graphql_ws, invalid_messages_are_refused_before_authorization) {
  /* graphql-ws validates a message before it looks at the state */
  rec r;
  setup(&r, NULL);
  msg(&r, "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":{}}");
  cr_assert_eq(r.close_code, 4400);
  teardown(&r);
}

Test(graphql_ws, operations_per_connection_are_bounded) {
  gql_gws_limits lim = {.max_operations = 3};
  rec r;
  setup(&r, &lim);
  acked(&r);
  msg(&r, SUB("1", "subscription { tick }"));
  msg(&r, SUB("2", "subscription { tick }"));
  msg(&r, SUB("3", "subscription { tick }"));
  msg(&r, SUB("4", "subscription { tick }"));
  cr_assert_eq(r.closes, 0);
  cr_assert_eq(r.nsubs, 3);
  cr_assert_eq(r.nsent, 1);
  cr_assert(strstr(r.sent[0],
                   "{\"id\":\"4\",\"type\":\"error\",\"payload\":"
                   "[{\"message\":\"Too many operations") == r.sent[0]);
  gql_gws_complete(r.ops[0]);
  msg(&r, SUB("4", "subscription { tick }"));
  cr_assert_eq(r.nsubs, 4, "room again after one ended");
  teardown(&r);
}

Test(graphql_ws, ids_are_bounded_and_escaped_in_answers) {
  gql_gws_limits lim = {.max_id = 16};
  rec r;
  setup(&r, &lim);
  acked(&r);
  msg(&r, "{\"id\":\"q\\\"\\\\\\u00e9\\n\",\"type\":\"subscribe\","
          "\"payload\":{\"query\":\"{a}\"}}");
  cr_assert_eq(r.closes, 0);
  gql_gws_complete(r.ops[0]);
  cr_assert_str_eq(r.sent[0],
                   "{\"id\":\"q\\\"\\\\\xc3\xa9\\n\",\"type\":\"complete\"}");
  msg(&r, SUB("0123456789abcdefg", "{a}"));
  cr_assert_eq(r.close_code, 4400);
  teardown(&r);
}

Test(graphql_ws, the_server_may_close_and_freeing_cancels_everything) {
  rec r;
  setup(&r, NULL);
  acked(&r);
  msg(&r, SUB("a", "subscription { tick }"));
  gql_gws_close(&r.g, 1001, "Going away");
  cr_assert_eq(r.close_code, 1001);
  cr_assert_eq(r.cancels, 1);
  teardown(&r);

  setup(&r, NULL);
  acked(&r);
  msg(&r, SUB("a", "subscription { tick }"));
  msg(&r, SUB("b", "subscription { tick }"));
  gql_gws_free(&r.g);
  cr_assert_eq(r.cancels, 2);
  cr_assert_eq(r.closes, 0, "the socket is already gone: no close");
  gql_gws_env_free(r.env);
}

Test(graphql_ws, completing_from_the_cancel_callback_is_harmless) {
  rec r;
  setup(&r, NULL);
  acked(&r);
  r.mode = COMPLETE_IN_CANCEL;
  msg(&r, SUB("a", "subscription { tick }"));
  msg(&r, SUB("b", "subscription { tick }"));
  msg(&r, "{\"id\":\"a\",\"type\":\"complete\"}");
  cr_assert_eq(r.cancels, 1);
  cr_assert_eq(r.nsent, 0);
  teardown(&r);
  cr_assert_eq(r.cancels, 2);
}

Test(graphql_ws, deep_messages_are_refused_without_recursion_trouble) {
  rec r;
  setup(&r, NULL);
  char deep[10000];
  size_t n = 0;
  n += (size_t)snprintf(deep, sizeof deep, "{\"type\":\"ping\",\"payload\":");
  for (int i = 0; i < 3000; i++)
    deep[n++] = '[';
  deep[n] = 0;
  msg(&r, deep);
  cr_assert_eq(r.close_code, 4400);
  teardown(&r);
}
