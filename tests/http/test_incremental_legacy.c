/* src/http/incremental_legacy.c: graphql-js 17's incremental payloads to
 * Apollo's deferSpec=20220824 (the corpus's 78 cases are run.py's part
 * "legacy"; these pin the edges). */
#include "http/incremental.h"
#include "http/incremental_legacy.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Converts `json` (has_next from its text) and returns a copy. */
static char *conv(gql_http_legacy *l, const char *json,
                  gql_http_legacy_status *st) {
  const char *out;
  size_t n;
  bool has_next = strstr(json, "\"hasNext\":true") != NULL;
  gql_http_legacy_status s =
      gql_http_legacy_convert(l, json, strlen(json), has_next, &out, &n);
  if (st)
    *st = s;
  else
    cr_assert_eq(s, GQL_HTTP_LEGACY_OK, "%s: %s", json,
                 gql_http_legacy_message(s));
  char *copy = strndup(out, n);
  cr_assert(copy);
  return copy;
}

#define EXPECT(l, in, want)                                                    \
  do {                                                                         \
    char *got_ = conv((l), (in), NULL);                                        \
    cr_assert_str_eq(got_, (want));                                            \
    free(got_);                                                                \
  } while (0)

Test(incremental_legacy, router_clients_accept_values_negotiate_it) {
  /* Apollo Kotlin and iOS (Router's clients), Apollo Client 3 */
  const char *accepts[] = {
      "multipart/mixed;deferSpec=20220824, application/json",
      "multipart/mixed;boundary=\"graphql\";deferSpec=20220824,application/"
      "json",
      "multipart/mixed; deferSpec=20220824, application/json",
      "multipart/mixed;deferSpec=20220824,application/"
      "graphql-response+json,application/json;q=0.9"};
  for (size_t i = 0; i < sizeof accepts / sizeof *accepts; i++)
    cr_assert_eq(gql_http_stream_negotiate(accepts[i], strlen(accepts[i])),
                 GQL_HTTP_STREAM_MULTIPART_LEGACY, "%s", accepts[i]);
  cr_assert(
      strstr(gql_http_stream_content_type(GQL_HTTP_STREAM_MULTIPART_LEGACY),
             "deferSpec=20220824"));
}

Test(incremental_legacy, entries_get_the_full_path_and_label) {
  gql_http_legacy l = {0};
  EXPECT(&l,
         "{\"data\":{\"a\":{}},\"pending\":[{\"id\":\"0\",\"path\":[\"a\"],"
         "\"label\":\"L\"}],\"hasNext\":true}",
         "{\"data\":{\"a\":{}},\"hasNext\":true}");
  EXPECT(&l,
         "{\"hasNext\":false,\"incremental\":[{\"id\":\"0\",\"data\":{\"x\":1},"
         "\"subPath\":[\"b\",2],\"errors\":[{\"message\":\"m\"}]}],"
         "\"completed\":[{\"id\":\"0\"}]}",
         "{\"hasNext\":false,\"incremental\":[{\"data\":{\"x\":1},\"path\":"
         "[\"a\",\"b\",2],\"errors\":[{\"message\":\"m\"}],\"label\":\"L\"}]}");
  cr_assert_eq(l.count, 0, "completed ids leave the table");
  gql_http_legacy_free(&l);
}

Test(incremental_legacy, stream_items_are_indexed_from_the_initial_length) {
  gql_http_legacy l = {0};
  EXPECT(&l,
         "{\"data\":{\"o\":{\"list\":[1,2,3]}},\"pending\":[{\"id\":\"7\","
         "\"path\":[\"o\",\"list\"]}],\"hasNext\":true}",
         "{\"data\":{\"o\":{\"list\":[1,2,3]}},\"hasNext\":true}");
  EXPECT(&l,
         "{\"hasNext\":true,\"incremental\":[{\"id\":\"7\",\"items\":[4,5]}]}",
         "{\"hasNext\":true,\"incremental\":[{\"items\":[4,5],\"path\":[\"o\","
         "\"list\",3]}]}");
  EXPECT(&l,
         "{\"hasNext\":true,\"incremental\":[{\"id\":\"7\",\"items\":[6]}]}",
         "{\"hasNext\":true,\"incremental\":[{\"items\":[6],\"path\":[\"o\","
         "\"list\",5]}]}");
  /* a stream that fails: items null at the list's path */
  EXPECT(&l,
         "{\"hasNext\":false,\"completed\":[{\"id\":\"7\",\"errors\":[{"
         "\"message\":\"x\"}]}]}",
         "{\"hasNext\":false,\"incremental\":[{\"items\":null,\"path\":[\"o\","
         "\"list\"],\"errors\":[{\"message\":\"x\"}]}]}");
  gql_http_legacy_free(&l);
}

Test(incremental_legacy, a_failed_fragment_is_data_null_and_a_quiet_end_bare) {
  gql_http_legacy l = {0};
  EXPECT(&l,
         "{\"data\":{\"h\":{\"id\":1}},\"pending\":[{\"id\":\"0\",\"path\":"
         "[\"h\"]},{\"id\":\"1\",\"path\":[]}],\"hasNext\":true}",
         "{\"data\":{\"h\":{\"id\":1}},\"hasNext\":true}");
  EXPECT(&l, "{\"hasNext\":true,\"completed\":[{\"id\":\"1\"}]}",
         "{\"hasNext\":true}");
  EXPECT(&l,
         "{\"hasNext\":false,\"completed\":[{\"id\":\"0\",\"errors\":[1]}]}",
         "{\"hasNext\":false,\"incremental\":[{\"data\":null,\"path\":[\"h\"],"
         "\"errors\":[1]}]}");
  gql_http_legacy_free(&l);
}

Test(incremental_legacy, pending_announced_inside_streamed_items) {
  gql_http_legacy l = {0};
  EXPECT(&l,
         "{\"data\":{\"f\":[]},\"pending\":[{\"id\":\"0\",\"path\":[\"f\"],"
         "\"label\":\"s\"}],\"hasNext\":true}",
         "{\"data\":{\"f\":[]},\"hasNext\":true}");
  /* the inner list of the streamed item is itself streamed */
  EXPECT(&l,
         "{\"hasNext\":true,\"pending\":[{\"id\":\"1\",\"path\":[\"f\",0,"
         "\"g\"]}],\"incremental\":[{\"id\":\"0\",\"items\":[{\"g\":[1,2]}]}]}",
         "{\"hasNext\":true,\"incremental\":[{\"items\":[{\"g\":[1,2]}],"
         "\"path\":[\"f\",0],\"label\":\"s\"}]}");
  EXPECT(&l,
         "{\"hasNext\":false,\"incremental\":[{\"id\":\"1\",\"items\":[3]}],"
         "\"completed\":[{\"id\":\"1\"},{\"id\":\"0\"}]}",
         "{\"hasNext\":false,\"incremental\":[{\"items\":[3],\"path\":[\"f\",0,"
         "\"g\",2]}]}");
  gql_http_legacy_free(&l);
}

Test(incremental_legacy, unknown_ids_and_bad_json_end_in_one_error_then_bare) {
  const char *bad[] = {
      "{\"hasNext\":true,\"incremental\":[{\"id\":\"9\",\"data\":{}}]}",
      "{\"hasNext\":true,\"completed\":[{\"id\":\"9\"}]}",
      "{\"hasNext\":true,\"incremental\":[{\"id\":\"0\"}]}",
      "{\"hasNext\":true,\"pending\":[{\"id\":\"1\",\"path\":[1.5]}]}",
      "{\"hasNext\":true,\"pending\":[{\"id\":\"0\",\"path\":[]}]}", /* twice */
      "{\"hasNext\":true,\"incremental\":[",
      "{\"hasNext\":true} trailing"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    gql_http_legacy l = {0};
    free(conv(&l,
              "{\"data\":{},\"pending\":[{\"id\":\"0\",\"path\":[]}],"
              "\"hasNext\":true}",
              NULL));
    gql_http_legacy_status st;
    char *got = conv(&l, bad[i], &st);
    cr_assert_neq(st, GQL_HTTP_LEGACY_OK, "%s", bad[i]);
    cr_assert(strstr(got, "\"hasNext\":true,\"errors\":[{\"message\":\"") ==
                  got + 1,
              "%s -> %s", bad[i], got);
    cr_assert(strstr(got, "deferSpec=20220824"), "%s", got);
    free(got);
    got = conv(&l, "{\"hasNext\":false,\"completed\":[{\"id\":\"0\"}]}", &st);
    cr_assert_eq(st, GQL_HTTP_LEGACY_OK);
    cr_assert_str_eq(got, "{\"hasNext\":false}");
    free(got);
    gql_http_legacy_free(&l);
  }
}

Test(incremental_legacy, the_table_is_bounded) {
  gql_http_legacy l = {.max_table = 4096};
  char buf[256];
  gql_http_legacy_status st = GQL_HTTP_LEGACY_OK;
  free(conv(&l, "{\"data\":{},\"hasNext\":true}", NULL));
  int i;
  for (i = 0; i < 1000 && !st; i++) {
    snprintf(buf, sizeof buf,
             "{\"hasNext\":true,\"pending\":[{\"id\":\"%d\",\"path\":[\"a\","
             "%d]}]}",
             i, i);
    free(conv(&l, buf, &st));
    cr_assert_leq(l.table_bytes, 4096);
  }
  cr_assert_eq(st, GQL_HTTP_LEGACY_TABLE_FULL);
  cr_assert_gt(i, 20, "the bound holds what fits (%d)", i);
  char *got = conv(&l, "{\"hasNext\":true}", &st);
  cr_assert_str_eq(got, "{\"hasNext\":true}");
  free(got);
  gql_http_legacy_free(&l);
}

Test(incremental_legacy, a_first_payload_that_fails_is_a_result_with_errors) {
  gql_http_legacy l = {0};
  gql_http_legacy_status st;
  char *got = conv(&l, "not json", &st);
  cr_assert_eq(st, GQL_HTTP_LEGACY_BAD_PAYLOAD);
  cr_assert(strncmp(got, "{\"data\":null,\"errors\":[{\"message\":\"", 35) == 0,
            "%s", got);
  cr_assert(strstr(got, "\"hasNext\":false}"), "%s", got);
  free(got);
  gql_http_legacy_free(&l);
}

Test(incremental_legacy, other_members_pass_through_in_place) {
  gql_http_legacy l = {0};
  EXPECT(&l,
         "{\"errors\":[{\"message\":\"e\"}],\"data\":{\"pending\":1},"
         "\"pending\":[],\"hasNext\":true,\"extensions\":{\"x\":[]}}",
         "{\"errors\":[{\"message\":\"e\"}],\"data\":{\"pending\":1},"
         "\"hasNext\":true,\"extensions\":{\"x\":[]}}");
  EXPECT(&l, "{\"data\":{\"plain\":true}}", "{\"data\":{\"plain\":true}}");
  gql_http_legacy_free(&l);
}

Test(incremental_legacy, a_new_streams_items_before_the_list_that_holds_it) {
  gql_http_legacy l = {0};
  EXPECT(&l,
         "{\"data\":{\"o\":{}},\"pending\":[{\"id\":\"0\",\"path\":[\"o\"]}],"
         "\"hasNext\":true}",
         "{\"data\":{\"o\":{}},\"hasNext\":true}");
  /* the stream announced with the fragment whose data holds its first
   * two items, its third item listed before that data */
  EXPECT(&l,
         "{\"hasNext\":true,\"pending\":[{\"id\":\"1\",\"path\":[\"o\",\"l\"]}"
         "],\"incremental\":[{\"id\":\"1\",\"items\":[3]},{\"id\":\"0\","
         "\"data\":{\"l\":[1,2]}}],\"completed\":[{\"id\":\"0\"}]}",
         "{\"hasNext\":true,\"incremental\":[{\"items\":[3],\"path\":[\"o\","
         "\"l\",2]},{\"data\":{\"l\":[1,2]},\"path\":[\"o\"]}]}");
  EXPECT(&l,
         "{\"hasNext\":false,\"incremental\":[{\"id\":\"1\",\"items\":[4]}],"
         "\"completed\":[{\"id\":\"1\"}]}",
         "{\"hasNext\":false,\"incremental\":[{\"items\":[4],\"path\":[\"o\","
         "\"l\",3]}]}");
  gql_http_legacy_free(&l);
}
