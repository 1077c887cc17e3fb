/*
 * Runs one execution case of the incremental corpus (cases/exec/NAME.json)
 * through gql_execute_incremental and prints each payload as a line of
 * compact JSON, for run.py to check against what graphql-js 17.1 answered.
 *
 * Usage: incremental_exec [--now | --sync] CASE.json
 *
 * --now writes an $async value at once (nothing pends); --sync does too
 * and registers the resolvers synchronous (GQL_RESOLVER_SYNC), so that an
 * operation over synchronous types runs its initial result in direct mode
 * rather than tree mode, and writes lists of plain objects with
 * gql_out_object_ptrs (inc_markers.bulk): run.py requires the same payloads
 * of both (see its part sync).
 *
 * The fields resolve as markers.h says (the corpus's data with its $error
 * and $async markers); a tick is one turn of this program's loop.
 */
#include "markers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void resolve(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  inc_markers_resolve(*(const inc_ctx *)gql_info_data(info), info, parent, out);
}

static void on_payload(void *ud, const char *json, size_t len, bool errs) {
  (void)ud;
  (void)errs;
  fwrite(json, 1, len, stdout);
  fputc('\n', stdout);
}

int main(int argc, char **argv) {
  bool sync = argc == 3 && strcmp(argv[1], "--sync") == 0;
  bool now = sync || (argc == 3 && strcmp(argv[1], "--now") == 0);
  if (argc != 2 + now) {
    fprintf(stderr, "usage: incremental_exec [--now | --sync] CASE.json\n");
    return 2;
  }
  const char *path = argv[1 + now];
  gql_arena *arena = gql_arena_new(NULL);
  inc_markers m = {.at_once = now, .bulk = sync};
  inc_ctx x = {&m, arena};
  char *text = NULL;
  inc_case c;
  if (!arena || inc_case_load(path, arena, &text, &c, resolve, &x,
                              sync ? GQL_RESOLVER_SYNC : 0) < 0)
    return 2;
  gql_prepared *p;
  gql_errors errs = {0};
  if (gql_prepare(c.schema, c.document.ptr, c.document.len,
                  c.operation[0] ? c.operation : NULL, NULL, &p, &errs) < 0) {
    fprintf(stderr, "incremental_exec: the document does not prepare\n");
    return 2;
  }
  gql_execute_params params = {.variables_json = c.variables.ptr,
                               .variables_len = c.variables.len,
                               .root_value = c.root_value,
                               .on_done = on_payload};
  int rc = gql_execute_incremental(p, &params);
  /* the loop: one tick a turn, until nothing is pending */
  while (rc == 1 && inc_markers_tick(&m))
    ;
  if (rc < 0)
    fprintf(stderr, "incremental_exec: %s\n", gql_strerror(rc));
  fflush(stdout);
  gql_prepared_free(p);
  gql_schema_free(c.schema);
  gql_arena_free(arena);
  inc_markers_free(&m);
  free(text);
  return rc < 0 ? 1 : 0;
}
