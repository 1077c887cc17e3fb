#include "core/core.h"

#include <criterion/criterion.h>
#include <stdio.h>

Test(error, every_code_has_a_name_and_a_message) {
#define X(name, val, msg)                                                      \
  cr_assert_str_eq(gql_err_name(GQL_E##name), "GQL_E" #name);                  \
  cr_assert_str_eq(gql_strerror(GQL_E##name), msg);
  GQL_ERRNO_MAP(X)
#undef X
  cr_assert_str_eq(gql_strerror(0), "success");
  cr_assert_str_eq(gql_err_name(12345), "GQL_EUNKNOWN");
}

Test(error, version_matches_the_macros) {
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", GQL_VERSION_MAJOR, GQL_VERSION_MINOR,
           GQL_VERSION_PATCH);
  cr_assert_str_eq(gql_version(), want);
}
