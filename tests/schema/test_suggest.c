#include "helpers.h"

static char *suggest(const char *input, const char *const *opts, uint32_t n) {
  gql_str o[16], out[16];
  for (uint32_t i = 0; i < n; i++)
    o[i] = gql_cstr(opts[i]);
  gql_arena *a = gql_arena_new(NULL);
  uint32_t k = gql_suggestion_list(gql_cstr(input), o, n, out, 16, a);
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_did_you_mean(&b, NULL, out, k);
  char *r = strdup(gql_buf_cstr(&b) ? gql_buf_cstr(&b) : "");
  gql_buf_free(&b);
  gql_arena_free(a);
  return r;
}

#define EXPECT(input, want, ...)                                               \
  do {                                                                         \
    const char *const opts_[] = {__VA_ARGS__};                                 \
    char *got_ = suggest(input, opts_, GQL_ARRAY_LEN(opts_));                  \
    cr_assert_str_eq(got_, want);                                              \
    free(got_);                                                                \
  } while (0)

Test(suggest, close_names_are_suggested_best_first) {
  EXPECT("agr", " Did you mean \"arg\"?", "arg", "other");
  EXPECT("abc", " Did you mean \"ABC\" or \"ab\"?", "ab", "ABC", "xyz");
  EXPECT("zzzz", "", "arg", "abc");
}

Test(suggest, ties_break_in_natural_order) {
  EXPECT("abcxx", " Did you mean \"abc9\", \"abc10\", or \"abc12\"?", "abc12",
         "abc10", "abc9");
}

Test(suggest, at_most_five_are_listed) {
  EXPECT("ab", " Did you mean \"a\", \"aa\", \"b\", \"ba\", or \"bb\"?", "bb",
         "ba", "b", "aa", "a", "abcd");
}

Test(suggest, sub_message_is_inserted) {
  gql_str n[1] = {GQL_STR("x")};
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_did_you_mean(&b, "the enum value", n, 1);
  cr_assert_str_eq(gql_buf_cstr(&b), " Did you mean the enum value \"x\"?");
  gql_buf_free(&b);
}
