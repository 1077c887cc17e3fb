/* Log lines: one JSON object a line (parsed back, every field checked)
 * and the text format, whatever bytes a client put in the path or the
 * operation name. */
#include "observe/log.h"
#include "json/json.h"

#include <criterion/criterion.h>
#include <stdio.h>

/* 2026-12-01T10:08:33.123Z */
static const uint64_t T = 1796119713123456789u;

static gql_json_value *parse_line(gql_arena *a, const gql_buf *b) {
  cr_assert(b->len && b->data[b->len - 1] == '\n', "a line ends with \\n");
  cr_assert(!memchr(b->data, '\n', b->len - 1), "one line");
  gql_json_value *v = NULL;
  gql_json_error e;
  cr_assert_eq(gql_json_parse(a, b->data, b->len - 1, NULL, &v, &e), 0,
               "not JSON (%s): %.*s", e.message, (int)b->len, b->data);
  cr_assert_eq(v->kind, GQL_JSON_OBJECT);
  return v;
}

static const char *str(gql_arena *a, const gql_json_value *o, const char *k) {
  const gql_json_value *v = gql_json_get(o, gql_cstr(k));
  if (!v)
    return NULL;
  cr_assert_eq(v->kind, GQL_JSON_STRING, "%s is not a string", k);
  return gql_arena_strndup(a, v->string.ptr, v->string.len);
}

static double num(const gql_json_value *o, const char *k) {
  const gql_json_value *v = gql_json_get(o, gql_cstr(k));
  cr_assert(v && v->kind == GQL_JSON_NUMBER, "%s is not a number", k);
  return v->number.d;
}

Test(log, time_is_rfc3339_utc_to_the_millisecond) {
  char t[32];
  gql_log_time(T, t);
  cr_assert_str_eq(t, "2026-12-01T10:08:33.123Z");
  gql_log_time(0, t);
  cr_assert_str_eq(t, "1970-01-01T00:00:00.000Z");
  gql_log_time(951782400999000000u, t); /* a leap day */
  cr_assert_str_eq(t, "2000-02-29T00:00:00.999Z");
}

Test(log, json_access_line_has_every_field) {
  gql_arena *a = gql_arena_new(NULL);
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_log_access acc = {.client = GQL_STR("127.0.0.1:53211"),
                        .method = GQL_STR("POST"),
                        .path = GQL_STR("/graphql"),
                        .status = 200,
                        .bytes = 1234,
                        .duration_ns = 532123,
                        .operation = GQL_STR("HeroFriends"),
                        .trace_id =
                            GQL_STR("4bf92f3577b34da6a3ce929d0e0e4736")};
  gql_log_line(&b, GQL_LOG_JSON, T, GQL_LOG_INFO, "gql serve", GQL_STR(""),
               &acc);
  gql_json_value *v = parse_line(a, &b);
  cr_assert_str_eq(str(a, v, "time"), "2026-12-01T10:08:33.123Z");
  cr_assert_str_eq(str(a, v, "level"), "info");
  cr_assert_str_eq(str(a, v, "msg"), "access");
  cr_assert_str_eq(str(a, v, "logger"), "gql serve");
  cr_assert_str_eq(str(a, v, "client"), "127.0.0.1:53211");
  cr_assert_str_eq(str(a, v, "method"), "POST");
  cr_assert_str_eq(str(a, v, "path"), "/graphql");
  cr_assert_eq(num(v, "status"), 200);
  cr_assert_eq(num(v, "bytes"), 1234);
  cr_assert_float_eq(num(v, "duration_ms"), 0.532, 1e-9);
  cr_assert_str_eq(str(a, v, "operation"), "HeroFriends");
  cr_assert_str_eq(str(a, v, "trace_id"), "4bf92f3577b34da6a3ce929d0e0e4736");
  /* no operation, no trace: the fields are left out */
  b.len = 0;
  acc.operation = acc.trace_id = GQL_STR("");
  gql_log_line(&b, GQL_LOG_JSON, T, GQL_LOG_INFO, NULL, GQL_STR(""), &acc);
  v = parse_line(a, &b);
  cr_assert_null(str(a, v, "operation"));
  cr_assert_null(str(a, v, "trace_id"));
  cr_assert_null(str(a, v, "logger"));
  gql_buf_free(&b);
  gql_arena_free(a);
}

Test(log, json_message_line_and_levels) {
  gql_arena *a = gql_arena_new(NULL);
  gql_buf b;
  gql_buf_init(&b, NULL);
  static const char *const levels[] = {"error", "warn", "info", "debug"};
  for (int l = 0; l < 4; l++) {
    b.len = 0;
    gql_log_line(&b, GQL_LOG_JSON, T, (gql_log_level)l, "gql gateway",
                 GQL_STR("subgraph \"products\" down\n(retrying)"), NULL);
    gql_json_value *v = parse_line(a, &b);
    cr_assert_str_eq(str(a, v, "level"), levels[l]);
    cr_assert_str_eq(str(a, v, "msg"),
                     "subgraph \"products\" down\n(retrying)");
    cr_assert_null(str(a, v, "status"));
  }
  gql_buf_free(&b);
  gql_arena_free(a);
}

Test(log, hostile_request_strings_stay_one_valid_line) {
  gql_arena *a = gql_arena_new(NULL);
  gql_buf b;
  gql_buf_init(&b, NULL);
  char path[3000];
  memset(path, 'p', sizeof path);
  path[0] = '/';
  gql_log_access acc = {
      .client = GQL_STR("[::1]:1"),
      .method = GQL_STR("GET"),
      .path = (gql_str){path, sizeof path},
      .status = 400,
      .operation =
          GQL_STR("x\"}\n{\"level\":\"error\",\"msg\":\"forged\xff\x01")};
  gql_log_line(&b, GQL_LOG_JSON, T, GQL_LOG_INFO, NULL, GQL_STR(""), &acc);
  gql_json_value *v = parse_line(a, &b);
  cr_assert_eq(strlen(str(a, v, "path")), 1024, "the path is cut");
  cr_assert_str_eq(
      str(a, v, "operation"),
      "x\"}\n{\"level\":\"error\",\"msg\":\"forged\xef\xbf\xbd\x01");
  cr_assert_str_eq(str(a, v, "level"), "info");
  /* the text line: one line, the fields apart */
  b.len = 0;
  acc.path = GQL_STR("/graphql?query={ a }");
  gql_log_line(&b, GQL_LOG_TEXT, T, GQL_LOG_INFO, NULL, GQL_STR(""), &acc);
  cr_assert(!memchr(b.data, '\n', b.len - 1));
  cr_assert(strstr(gql_buf_cstr(&b), "/graphql?query={\\x20a\\x20}"));
  cr_assert(strstr(gql_buf_cstr(&b), "x\"}\\x0a{\"level\""));
  gql_buf_free(&b);
  gql_arena_free(a);
}

Test(log, text_lines_carry_the_time_and_the_client) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_log_access acc = {.client = GQL_STR("127.0.0.1:53211"),
                        .method = GQL_STR("POST"),
                        .path = GQL_STR("/graphql"),
                        .status = 200,
                        .bytes = 57,
                        .duration_ns = 42999,
                        .operation = GQL_STR("Q"),
                        .trace_id =
                            GQL_STR("0af7651916cd43dd8448eb211c80319c")};
  gql_log_line(&b, GQL_LOG_TEXT, T, GQL_LOG_INFO, "gql serve", GQL_STR(""),
               &acc);
  cr_assert_str_eq(gql_buf_cstr(&b),
                   "2026-12-01T10:08:33.123Z 127.0.0.1:53211 POST /graphql 200 "
                   "57 42us Q trace=0af7651916cd43dd8448eb211c80319c\n");
  b.len = 0;
  acc.operation = acc.trace_id = acc.client = GQL_STR("");
  gql_log_line(&b, GQL_LOG_TEXT, T, GQL_LOG_INFO, NULL, GQL_STR(""), &acc);
  cr_assert_str_eq(gql_buf_cstr(&b), "2026-12-01T10:08:33.123Z - POST /graphql "
                                     "200 57 42us -\n");
  b.len = 0;
  gql_log_line(&b, GQL_LOG_TEXT, T, GQL_LOG_WARN, "gql serve",
               GQL_STR("two\nlines"), NULL);
  cr_assert_str_eq(gql_buf_cstr(&b),
                   "2026-12-01T10:08:33.123Z warn gql serve: two lines\n");
  gql_buf_free(&b);
}
