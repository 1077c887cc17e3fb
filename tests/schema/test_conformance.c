/* Runs tests/schema/check_conformance.py (graphql-js's recorded validateSDL
 * cases and printSchema round trips) against the gql binary. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

Test(conformance, sdl_validation_and_print_schema_match_graphql_js,
     .timeout = 240) {
  const char *conf = GQL_SOURCE_DIR "/../shared/conformance";
  struct stat st;
  if (stat(conf, &st) != 0)
    cr_skip_test("no conformance data at %s", conf);
  if (system("python3 -c 1 >/dev/null 2>&1") != 0)
    cr_skip_test("python3 is not available");
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "python3 '%s/tests/schema/check_conformance.py' '%s/gql' '%s' -v",
           GQL_SOURCE_DIR, GQL_BINARY_DIR, conf);
  cr_assert_eq(system(cmd), 0, "conformance mismatches (see output)");
}
