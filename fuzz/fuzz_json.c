/* Parses arbitrary bytes as JSON. A rejection must carry a message and a
 * position inside the input; an accepted document must write, parse back
 * to an equal value and write again to the same bytes (compact and
 * pretty). */
#include "json/json.h"

#include <stdint.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

static void round_trip(gql_arena *a, const gql_json_value *v, int indent) {
  gql_buf first, second;
  gql_buf_init(&first, NULL);
  gql_buf_init(&second, NULL);
  CHECK(gql_json_write_value_pretty(&first, v, indent) == 0);
  gql_json_value *back = NULL;
  gql_json_error err;
  gql_json_options opt = {.max_size = (size_t)1 << 30};
  int rc = gql_json_parse(a, first.data, first.len, &opt, &back, &err);
  CHECK(rc == 0);
  CHECK(gql_json_equal(v, back));
  CHECK(gql_json_write_value_pretty(&second, back, indent) == 0);
  CHECK(first.len == second.len);
  CHECK(first.len == 0 || memcmp(first.data, second.data, first.len) == 0);
  gql_buf_free(&first);
  gql_buf_free(&second);
}

/* The whole input is the document, parsed with the defaults; then, when
 * it is long enough, the first byte picks a small depth limit and an arena
 * byte cap for a second parse of the rest, so that limit and out-of-memory
 * paths are explored too. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gql_arena *a = gql_arena_new(NULL);
  if (!a)
    return 0;
  gql_json_value *v = NULL;
  gql_json_error err;
  int rc = gql_json_parse(a, (const char *)data, size, NULL, &v, &err);
  if (rc == 0) {
    CHECK(v != NULL);
    round_trip(a, v, 0);
    round_trip(a, v, 2);
  } else {
    CHECK(rc == GQL_EJSON || rc == GQL_ELIMIT);
    CHECK(v == NULL);
    CHECK(err.message[0] != 0);
    CHECK(err.offset <= size);
    CHECK(err.location.line >= 1 && err.location.column >= 1);
  }
  gql_arena_free(a);

  if (size < 2)
    return 0;
  a = gql_arena_new(NULL);
  if (!a)
    return 0;
  gql_arena_set_limit(a, (size_t)4096 << (data[0] & 7));
  gql_json_options opt = {.max_depth = 1u + (data[0] >> 3)};
  rc = gql_json_parse(a, (const char *)data + 1, size - 1, &opt, &v, &err);
  if (rc == 0)
    CHECK(v != NULL);
  else
    CHECK(v == NULL && err.message[0] != 0 && err.offset <= size - 1 &&
          (rc == GQL_EJSON || rc == GQL_ELIMIT || rc == GQL_ENOMEM));
  gql_arena_free(a);
  return 0;
}
