#include "core/core.h"

#include <criterion/criterion.h>
#include <stdio.h>

Test(strmap, finds_what_was_put_and_keeps_first_value) {
  gql_strmap m;
  gql_strmap_init(&m, NULL);
  cr_assert_eq(gql_strmap_put(&m, GQL_STR("Query"), 1), 1);
  cr_assert_eq(gql_strmap_put(&m, GQL_STR("Query"), 2), 0);
  uint32_t v = 0;
  cr_assert(gql_strmap_get(&m, GQL_STR("Query"), &v));
  cr_assert_eq(v, 1);
  cr_assert_not(gql_strmap_get(&m, GQL_STR("Quer"), &v));
  gql_strmap_free(&m);
}

Test(strmap, survives_growth_with_many_keys) {
  static char names[5000][16];
  gql_strmap m;
  gql_strmap_init(&m, NULL);
  for (uint32_t i = 0; i < 5000; i++) {
    snprintf(names[i], sizeof names[i], "name%u", i);
    cr_assert_eq(gql_strmap_put(&m, gql_cstr(names[i]), i), 1);
  }
  cr_assert_eq(m.count, 5000);
  for (uint32_t i = 0; i < 5000; i++) {
    uint32_t v;
    cr_assert(gql_strmap_get(&m, gql_cstr(names[i]), &v));
    cr_assert_eq(v, i);
  }
  gql_strmap_free(&m);
}

Test(utf8, decode_rejects_overlong_and_surrogates) {
  uint32_t cp;
  cr_assert_eq(gql_utf8_decode("\xC0\x80", 2, &cp), 0);
  cr_assert_eq(gql_utf8_decode("\xED\xA0\x80", 3, &cp), 0);
  cr_assert_eq(gql_utf8_decode("\xF4\x90\x80\x80", 4, &cp), 0);
  cr_assert_eq(gql_utf8_decode("\xF0\x9F\x98\x80", 4, &cp), 4);
  cr_assert_eq(cp, 0x1F600);
  char out[4];
  cr_assert_eq(gql_utf8_encode(0x1F600, out), 4);
  cr_assert_eq(memcmp(out, "\xF0\x9F\x98\x80", 4), 0);
}
