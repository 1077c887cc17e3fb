/* Supergraphs the fuzzer found (fuzz/seeds/fuzz_supergraph/refused-*):
 * each is refused with a message, never a crash (run under ASan). */
#include "helpers.h"

#include <dirent.h>

#define SEEDS GQL_SOURCE_DIR "/fuzz/seeds/fuzz_supergraph/"

Test(supergraph_refusals, every_refused_seed_is_refused_with_a_message) {
  DIR *d = opendir(SEEDS);
  cr_assert_not_null(d);
  unsigned n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, "refused-", 8) != 0)
      continue;
    char path[512];
    snprintf(path, sizeof path, "%s%s", SEEDS, e->d_name);
    size_t len;
    char *sdl = gw_read_file(path, &len);
    gql_arena *ea = gql_arena_new(NULL);
    gql_supergraph *sg = NULL;
    const char *err = NULL;
    int rc = gql_supergraph_load(sdl, len, &sg, ea, &err);
    cr_expect_neq(rc, 0, "%s was loaded", e->d_name);
    cr_expect_null(sg);
    cr_expect(err && *err, "%s: no message", e->d_name);
    gql_supergraph_free(sg);
    gql_arena_free(ea);
    free(sdl);
    n++;
  }
  closedir(d);
  cr_expect_geq(n, 2, "the seeds are there");
}

Test(supergraph_refusals, a_second_join_graph_enum_is_refused) {
  const char *sdl =
      "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") "
      "B @join__graph(name: \"b\", url: \"http://b\") }\n"
      "type Query @join__type(graph: B) { f: Int }\n"
      "enum join__Graph { C @join__graph(name: \"c\", url: \"http://c\") }\n";
  gql_supergraph *sg = NULL;
  const char *err = NULL;
  cr_expect_neq(gql_supergraph_load(sdl, strlen(sdl), &sg, NULL, &err), 0);
  cr_expect_null(sg);
  cr_expect(err && *err);
}
